"""fluid.save / fluid.load / load_program_state / set_program_state in Fluid 1.8's layout:
``.pdparams`` and ``.pdopt`` are pickles of {name: ndarray}, read by pe's own parser (never
unpickled). The files here are made by Python's pickle of plain numpy arrays, as Fluid makes them;
hostile ones must be refused without running anything."""

from paths import REPO
import io
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.io.pdparams import parse_state, read_state
from pe_cli.io.pdparams_write import write_state

ARRAYS = {
    "scalar_f32": np.array(1.5, "float32"),
    "vec_f64": np.linspace(-1, 1, 7),
    "mat_i64": np.arange(-6, 6, dtype="int64").reshape(3, 4),
    "fortran_f32": np.asfortranarray(np.arange(24, dtype="float32").reshape(4, 6)),
    "cube_f64": np.random.RandomState(0).rand(2, 3, 4),
    "conv_w": np.random.RandomState(1).randn(4, 3, 2, 2).astype("float32"),
    "empty": np.zeros((0, 5), "float32"),
    "mask": np.array([True, False, True]),
    "big_endian": np.arange(5, dtype=">i4"),
    "int32": np.array([[7, -8]], "int32"),
    "strided": np.arange(20, dtype="float64").reshape(4, 5)[:, ::2],
}


def _same(got, want):
    assert set(got) == set(want)
    for k, v in want.items():
        assert got[k].shape == v.shape, k
        assert got[k].dtype == v.dtype.newbyteorder("="), k
        np.testing.assert_array_equal(got[k], v, err_msg=k)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_reads_what_pickle_writes(protocol):
    _same(parse_state(pickle.dumps(ARRAYS, protocol=protocol)), ARRAYS)


def test_reads_a_dict_of_one_and_of_none():
    _same(parse_state(pickle.dumps({"w": ARRAYS["conv_w"]}, protocol=2)), {"w": ARRAYS["conv_w"]})
    assert parse_state(pickle.dumps({}, protocol=2)) == {}


def test_reads_python_2_pickles():
    """Fluid 1.x under Python 2: str keys and array data as BINSTRING, dtype flags as ints."""
    raw = np.array([1.5, -2.0], "float32").tobytes()
    data = (
        b"\x80\x02}q\x00(U\x01wq\x01cnumpy.core.multiarray\n_reconstruct\nq\x02cnumpy\nndarray\nq\x03"
        b"K\x00\x85U\x01b\x87Rq\x04(K\x01K\x02\x85cnumpy\ndtype\nU\x02f4K\x00K\x01\x87R"
        b"(K\x03U\x01<NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK\x00tb\x89T"
        + len(raw).to_bytes(4, "little")
        + raw
        + b"tbu."
    )
    want = pickle.loads(data, encoding="latin1")  # what Fluid's pickle.load(f, encoding='latin1') gives
    _same(parse_state(data), want)
    _same(parse_state(data), {"w": np.array([1.5, -2.0], "float32")})


def test_written_file_is_protocol_2_and_readable_by_pickle():
    buf = io.BytesIO()
    write_state(buf, ARRAYS)
    data = buf.getvalue()
    assert data[:2] == b"\x80\x02"
    _same(parse_state(data), ARRAYS)
    # Fluid 1.8 reads it with pickle.load(f, encoding='latin1'); allow only the names a file of arrays needs
    allowed = {
        ("numpy.core.multiarray", "_reconstruct"),
        ("numpy", "ndarray"),
        ("numpy", "dtype"),
        ("_codecs", "encode"),
        ("__builtin__", "bytes"),
    }

    class OnlyArrays(pickle.Unpickler):
        def find_class(self, module, name):
            assert (module, name) in allowed, (module, name)
            return super().find_class(module, name)

    _same(OnlyArrays(io.BytesIO(data), encoding="latin1").load(), ARRAYS)


def _hostile_files(marker):
    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    arr = pickle.dumps({"w": np.ones(3, "float32")}, protocol=2)
    yield "os.system", pickle.dumps({"w": Boom()}, protocol=2)
    yield "os.system nested", pickle.dumps({"w": (np.ones(2), Boom())}, protocol=4)
    yield "object dtype", pickle.dumps({"w": np.array([1, "a"], dtype=object)}, protocol=2)
    yield "structured dtype", pickle.dumps({"w": np.zeros(2, dtype=[("a", "f4"), ("b", "i4")])}, protocol=2)
    yield "string dtype", pickle.dumps({"w": np.array(["ab"])}, protocol=3)
    yield "a class", pickle.dumps({"w": PeError}, protocol=2)
    yield "a list", pickle.dumps({"w": [1, 2]}, protocol=2)
    yield "not a dict", pickle.dumps([np.ones(2)], protocol=2)
    yield "truncated", arr[: len(arr) // 2]
    yield "empty", b""
    yield "no end", arr[:-1]
    yield "after end", arr + b"junk"
    yield "unknown opcode", b"\x80\x02}\xff."
    # a BINBYTES that declares 2**40 bytes: refused from the length, nothing allocated
    yield "huge declared size", b"\x80\x03}(X\x01\x00\x00\x00w\x8e" + (2**40).to_bytes(8, "little") + b"abcu."
    # an array whose shape asks for far more than the data holds
    big = pickle.dumps({"w": np.ones(4, "float32")}, protocol=2).replace(b"K\x04\x85", b"J\x00\x00\x00\x40\x85")
    yield "shape larger than data", big


def test_hostile_files_are_refused_and_run_nothing(tmp_path):
    marker = tmp_path / "ran"
    for what, data in _hostile_files(marker):
        path = tmp_path / "m.pdparams"
        path.write_bytes(data)
        with pytest.raises(PeError, match="is not a parameters file of plain arrays as Fluid's save writes it: ") as e:
            read_state(str(path))
        message = str(e.value)
        assert str(path) in message and "\n" not in message, (what, message)
        assert not marker.exists(), what


def test_hostile_file_through_fluid_load_in_a_process(tmp_path):
    """The command a user runs: one line naming the file, no traceback, the payload never runs."""
    marker = tmp_path / "ran"

    class Boom:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    (tmp_path / "m.pdparams").write_bytes(pickle.dumps({"fc_0.w_0": Boom()}, protocol=2))
    script = tmp_path / "s.py"
    script.write_text(
        "import paddle.fluid as fluid\n"
        "x = fluid.layers.data('x', [3])\n"
        "y = fluid.layers.fc(x, 2)\n"
        f"fluid.load(fluid.default_main_program(), {str(tmp_path / 'm')!r})\n"
    )
    env = dict(os.environ, PYTHONPATH=REPO)
    out = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode != 0
    assert "m.pdparams" in out.stderr and ".system'" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and out.stderr.startswith("pe fluid: s.py:4: error: ")
    assert not marker.exists()


def _net():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        y = fluid.layers.data("y", [1])
        h = fluid.layers.fc(x, 8, act="tanh")
        pred = fluid.layers.fc(h, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        test = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=0.05).minimize(loss)
    return main, startup, test, pred, loss


def _train(exe, main, loss, steps=5, seed=0):
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        x = rng.rand(16, 4).astype("float32")
        exe.run(main, feed={"x": x, "y": x.sum(1, keepdims=True)}, fetch_list=[loss])


def test_save_then_load_in_a_fresh_scope_predicts_the_same(tmp_path):
    x = np.random.RandomState(5).rand(6, 4).astype("float32")
    main, startup, test, pred, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        _train(exe, main, loss)
        (want,) = exe.run(test, feed={"x": x, "y": x[:, :1]}, fetch_list=[pred])
        fluid.save(main, str(tmp_path / "model"))
        (after_save,) = exe.run(main, feed={"x": x, "y": x[:, :1]}, fetch_list=[loss])
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        assert (tmp_path / f"model{ext}").is_file()
    state = fluid.io.load_program_state(str(tmp_path / "model"))
    assert {p.name for p in main.all_parameters()} <= set(state)
    assert any("moment1" in k for k in state) and any("beta1_pow" in k for k in state)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.load(main, str(tmp_path / "model"), exe)
        (got,) = exe.run(test, feed={"x": x, "y": x[:, :1]}, fetch_list=[pred])
        np.testing.assert_array_equal(got, want)
        # the optimizer state came back too: the next training step gives the same loss
        (again,) = exe.run(main, feed={"x": x, "y": x[:, :1]}, fetch_list=[loss])
        np.testing.assert_array_equal(again, after_save)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.io.set_program_state(main, state)
        (got,) = exe.run(test, feed={"x": x, "y": x[:, :1]}, fetch_list=[pred])
        np.testing.assert_array_equal(got, want)


def test_load_reads_a_file_written_by_pickle_as_fluid_does(tmp_path):
    main, startup, test, pred, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(3)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        params = {p.name: rng.rand(*p.shape).astype("float32") for p in main.all_parameters()}
        opt = {
            v.name: np.asarray(fluid.global_scope().get_array(v.name))
            for v in main.list_vars()
            if v.persistable and not isinstance(v, fluid.framework.Parameter) and not v.is_data
        }
        (tmp_path / "m.pdparams").write_bytes(pickle.dumps(params, protocol=2))
        (tmp_path / "m.pdopt").write_bytes(pickle.dumps(opt, protocol=2))
        fluid.load(main, str(tmp_path / "m.pdparams"))
        for name, value in params.items():
            np.testing.assert_array_equal(fluid.global_scope().get_array(name), value)


def test_load_errors_name_what_is_expected(tmp_path):
    main, startup, test, pred, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        with pytest.raises(PeError, match=r"nope\.pdparams' does not exist"):
            fluid.load(main, str(tmp_path / "nope"), exe)
        with pytest.raises(PeError, match=r"nope\.pdparams' does not exist"):
            fluid.io.load_program_state(str(tmp_path / "nope"))
        fluid.save(main, str(tmp_path / "m"))
        os.remove(tmp_path / "m.pdopt")
        with pytest.raises(PeError, match=r"m\.pdopt' does not exist"):
            fluid.load(main, str(tmp_path / "m"), exe)
        # a parameter missing from the file: named, and nothing is changed
        w = main.all_parameters()[0].name
        before = np.array(fluid.global_scope().get_array(w))
        (tmp_path / "p.pdparams").write_bytes(pickle.dumps({w: before + 1}, protocol=2))
        with pytest.raises(PeError, match=r"p\.pdparams' has no variable"):
            fluid.load(main, str(tmp_path / "p"), exe)
        np.testing.assert_array_equal(fluid.global_scope().get_array(w), before)
        # a wrong shape
        bad = {p.name: np.zeros((1, 1), "float32") for p in main.all_parameters()}
        (tmp_path / "s.pdparams").write_bytes(pickle.dumps(bad, protocol=2))
        with pytest.raises(PeError, match="shape"):
            fluid.load(main, str(tmp_path / "s"), exe)
        np.testing.assert_array_equal(fluid.global_scope().get_array(w), before)


def test_var_list_with_what_save_vars_wrote(tmp_path):
    main, startup, test, pred, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    x = np.random.RandomState(2).rand(3, 4).astype("float32")
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        _train(exe, main, loss, steps=2)
        (want,) = exe.run(test, feed={"x": x, "y": x[:, :1]}, fetch_list=[pred])
        fluid.io.save_params(exe, str(tmp_path / "dir"), main)
        fluid.io.save_params(exe, str(tmp_path), main, filename="all_params")
    params = main.all_parameters()
    for path in (str(tmp_path / "dir"), str(tmp_path / "all_params")):
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            fluid.load(main, path, exe, var_list=params)
            (got,) = exe.run(test, feed={"x": x, "y": x[:, :1]}, fetch_list=[pred])
            np.testing.assert_array_equal(got, want)
        state = fluid.io.load_program_state(path, var_list=params[:1] if path.endswith("dir") else params)
        assert list(state) == [p.name for p in (params[:1] if path.endswith("dir") else params)]
    with pytest.raises(PeError, match="bytes follow the 1 tensors"):  # as Fluid: a combined file is read whole
        fluid.io.load_program_state(str(tmp_path / "all_params"), var_list=params[:1])
    with pytest.raises(ValueError, match="var_list"):
        fluid.io.load_program_state(str(tmp_path / "all_params"))
    assert set(fluid.io.load_program_state(str(tmp_path / "dir"))) == {p.name for p in params}


def test_set_program_state_checks_before_setting(tmp_path):
    main, startup, test, pred, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        w = main.all_parameters()[0]
        before = np.array(fluid.global_scope().get_array(w.name))
        state = {w.name: before + 1, main.all_parameters()[1].name: np.zeros(3, "float64")}
        with pytest.raises(PeError, match="in state_dict"):
            fluid.io.set_program_state(main, state)
        np.testing.assert_array_equal(fluid.global_scope().get_array(w.name), before)
        with pytest.warns(UserWarning, match="not_a_var"):
            fluid.io.set_program_state(main, {w.name: before + 1, "not_a_var": np.ones(1)})
        np.testing.assert_array_equal(fluid.global_scope().get_array(w.name), before + 1)
