"""paddle.save / paddle.load in static mode (pe_cli/paddle/framework/io.py) and Program.state_dict /
set_state_dict: Paddle 2.x's formats written and read without unpickling. Paddle's own pickles are
made here with pickle.dumps of objects that reduce as Paddle's pickler reduces tensors (writing a
pickle runs nothing); a pickle naming anything else is refused and runs nothing."""

import io
import os
import pickle
import struct

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.fluid import core, io as fluid_io
from pe_cli.io.program_state import load as static_load


class PaddleLoDTensor:
    """Pickles as Paddle 2.6's pickler writes a LoDTensor: eval('data', {'data': array})."""

    def __init__(self, array):
        self.array = array

    def __reduce__(self):
        return (eval, ("data", {"data": self.array}))


class Hostile:
    def __reduce__(self):
        return (os.system, ("touch /tmp/pe_hostile_pickle_ran",))


class HostileEval:
    """eval, but not of Paddle's one shape."""

    def __reduce__(self):
        return (eval, ("open('/tmp/pe_hostile_pickle_ran', 'w')", {"data": 1}))


@pytest.fixture(scope="module")
def trained():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 3])
        loss = paddle.mean(paddle.static.nn.fc(x, 2))
        paddle.optimizer.Adam(0.1).minimize(loss)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe = paddle.static.Executor()
        exe.run(start)
        exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[loss])
    return main, scope


def test_state_dict_modes_and_a_round_trip_through_paddle_static_load(trained, tmp_path):
    main, scope = trained
    with paddle.static.scope_guard(scope):
        params, opt = main.state_dict("param"), main.state_dict("opt")
        assert sorted(params) == ["fc_0.b_0", "fc_0.w_0"]
        assert any("moment1" in n for n in opt) and not set(opt) & set(params)
        assert set(main.state_dict()) == set(params) | set(opt)
        with pytest.raises(TypeError, match=r"Type of `mode` should be string, but received <class 'int'>\."):
            main.state_dict(1)
        with pytest.raises(
            TypeError, match=r"`scope` should be None or `paddle\.static\.Scope'` type, but received <class 'int'>\."
        ):
            main.state_dict(scope=1)
        with pytest.raises(ValueError, match=r"`mode` string should be 'param', 'opt' or 'all', but received x\."):
            main.state_dict("x")
        want = {k: np.array(v) for k, v in params.items()}
        paddle.save(params, str(tmp_path / "m.pdparams"))
        paddle.save(opt, str(tmp_path / "m.pdopt"))
        loaded = paddle.load(str(tmp_path / "m.pdparams"))
        assert all(isinstance(v, core.LoDTensor) for v in loaded.values())
        for name in params:
            params[name].set(np.zeros_like(want[name]))
        static_load(main, str(tmp_path / "m"))  # paddle.static.load reads paddle.save's state dict
        for name, array in want.items():
            np.testing.assert_array_equal(np.array(main.state_dict("param")[name]), array)
            params[name].set(np.zeros_like(array))
        with pytest.warns(UserWarning, match="Skip loading for 'nowhere'"):
            main.set_state_dict(dict(paddle.load(str(tmp_path / "m.pdparams"), return_numpy=True), nowhere=np.ones(1)))
        for name, array in want.items():
            np.testing.assert_array_equal(np.array(main.state_dict("param")[name]), array)
        with pytest.raises(TypeError, match=r"Type of `state_dict` should be dict, but received <class 'int'>\."):
            main.set_state_dict(1)


def test_paddles_pickles_load_and_anything_else_is_refused(tmp_path):
    array = np.arange(6, dtype="float32").reshape(2, 3)
    for protocol in (2, 4):
        data = pickle.dumps(
            {"w": PaddleLoDTensor(array), "pair": ("w_name", array), "n": [1, 2.5, None]}, protocol=protocol
        )
        got = paddle.load(io.BytesIO(data), return_numpy=True)
        np.testing.assert_array_equal(got["w"], array)
        np.testing.assert_array_equal(got["pair"], array)  # a dygraph Tensor's (name, array)
        assert got["n"] == [1, 2.5, None]
    path = tmp_path / "hostile.pd"
    path.write_bytes(pickle.dumps({"x": Hostile()}, protocol=2))
    with pytest.raises(ValueError, match="can not parse.*hostile.pd.*system"):
        paddle.load(str(path))
    path.write_bytes(pickle.dumps([HostileEval()], protocol=4))
    with pytest.raises(ValueError, match="can not parse"):
        paddle.load(str(path))
    assert not os.path.exists("/tmp/pe_hostile_pickle_ran")


def test_buffers_programs_and_binary_tensors(trained, tmp_path):
    main, scope = trained
    tensor = core.LoDTensor(np.arange(4.0).reshape(2, 2))
    buffer = io.BytesIO()
    paddle.save(tensor, buffer)
    paddle.save({"a": tensor, "text": "x"}, buffer, protocol=3)
    buffer.seek(0)
    np.testing.assert_array_equal(paddle.load(buffer, return_numpy=True), np.asarray(tensor))  # stops at its end
    assert paddle.load(buffer, return_numpy=True)["text"] == "x"
    program_file = io.BytesIO()
    paddle.save(main, program_file)
    program_file.seek(0)
    assert paddle.load(program_file).desc.serialize_to_string() == main.desc.serialize_to_string()
    paddle.save(tensor, str(tmp_path / "t.bin"), use_binary_format=True)
    assert isinstance(paddle.load(str(tmp_path / "t.bin")), core.LoDTensor)
    rows = core.SelectedRows([0, 4], 10)
    with pytest.raises(ValueError, match=r"The saved tensor is not initialized\."):  # no values yet
        paddle.save(rows, str(tmp_path / "sr.bin"), use_binary_format=True)
    rows.get_tensor().set(np.ones((2, 3), "float32"))
    paddle.save(rows, str(tmp_path / "sr.bin"), use_binary_format=True)
    back = paddle.load(str(tmp_path / "sr.bin"))
    assert isinstance(back, core.SelectedRows) and (back.rows(), back.height()) == ([0, 4], 10)
    with pytest.raises(
        NotImplementedError,
        match=r"When use_binary_format = True, `paddle\.save`  expected Tensor, but received <class 'dict'>\.",
    ):
        paddle.save({}, str(tmp_path / "e"), use_binary_format=True)
    with pytest.raises(ValueError, match="protocol"):
        paddle.save({}, str(tmp_path / "e"), protocol=5)
    (tmp_path / "junk").write_bytes(b"\0")
    with pytest.raises(ValueError, match="can not parse"):
        paddle.load(str(tmp_path / "junk"))


def test_an_inference_model_prefix_loads_as_a_state_dict(trained, tmp_path):
    main, scope = trained
    with paddle.static.scope_guard(scope):
        x = main.global_block().var("x")
        fc_out = [op for op in main.global_block().ops if op.type == "elementwise_add"][0].output("Out")[0]
        paddle.static.save_inference_model(
            str(tmp_path / "infer"), [x], [main.global_block().var(fc_out)], paddle.static.Executor(), program=main
        )
        want = {k: np.array(v) for k, v in main.state_dict("param").items()}
    got = paddle.load(str(tmp_path / "infer"))
    assert sorted(got) == sorted(want)
    for name, array in want.items():
        np.testing.assert_array_equal(got[name], array)
    with pytest.raises(ValueError, match="not exists"):
        paddle.load(str(tmp_path / "nothing"))


def test_saves_onto_a_symlink_replace_the_link_and_keep_its_target(trained, tmp_path):
    """paddle.save, paddle.static.save and save_persistables (a whole directory) onto a symlink: the
    link is replaced by what is saved, the file or folder it pointed to is the user's and stays as it
    was (pe_cli/base/output_rule.py); saving into the same directory again still works."""
    main, scope = trained
    (tmp_path / "mine.pdparams").write_bytes(b"the user's file")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes").write_text("keep\n")
    for link, target in (("a.pdparams", "mine.pdparams"), ("m.pdparams", "mine.pdparams"), ("dir", "mine")):
        os.symlink(tmp_path / target, tmp_path / link)
    with paddle.static.scope_guard(scope):
        names = set(main.state_dict())
        paddle.save(main.state_dict(), str(tmp_path / "a.pdparams"))
        paddle.static.save(main, str(tmp_path / "m"))
        exe = paddle.static.Executor()
        for _ in range(2):
            fluid_io.save_persistables(exe, str(tmp_path / "dir"), main)
    assert (tmp_path / "mine.pdparams").read_bytes() == b"the user's file"
    assert sorted(os.listdir(tmp_path / "mine")) == ["notes"]
    for name in ("a.pdparams", "m.pdparams", "dir"):
        assert not os.path.islink(tmp_path / name)
    assert set(paddle.load(str(tmp_path / "a.pdparams"))) == names
    assert (tmp_path / "dir" / "notes").read_text() == "keep\n" and len(os.listdir(tmp_path / "dir")) > 2
    assert not [p for p in os.listdir(tmp_path) if ".old-" in p or ".tmp-" in p]


def _tensor_file(path, data_type=b"\x08\x05", dims=b"\x10\x02\x10\x03"):
    """A LoDTensor file of a float32 [2, 3] array whose TensorDesc says ``data_type`` and ``dims``."""
    desc = data_type + dims
    path.write_bytes(struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + np.ones(6, "<f4").tobytes())
    return str(path)


@pytest.mark.parametrize(
    "make, message",
    [
        # protobuf reads a number its enum lacks as bool: 99 read a bool tensor, then "version is not 0"
        (lambda p: _tensor_file(p, data_type=b"\x08\x63"), r"as a LoDTensor: .*data type 99 is not one pe reads"),
        # 2^32 x 2^32 elements: int64's product is 0, which read a 0-byte tensor and failed to reshape it
        (
            lambda p: _tensor_file(p, dims=b"\x10\x80\x80\x80\x80\x10" * 2),
            r"a float32 tensor \[4294967296, 4294967296\] needs 73786976294838206464 bytes at byte 34, 24 left",
        ),
        (lambda p: os.mkfifo(p) or str(p), "is a FIFO, not a regular file"),  # was "not exists"
    ],
    ids=["unknown-dtype", "dims-beyond-int64", "fifo"],
)
def test_a_hostile_file_is_one_of_pes_errors_naming_it(tmp_path, make, message):
    path = make(tmp_path / "t.pdtensor")
    with pytest.raises(PeError, match=message) as e:  # a PeError (and a ValueError, as Paddle's)
        paddle.load(path)
    assert "t.pdtensor" in str(e.value)
