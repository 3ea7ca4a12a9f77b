"""Model directories read from disk are bounded (pe_cli/base/limits.py): a ``__model__`` whose
blocks' parents form a cycle, an op that runs its own block, too many ops or blocks, nesting too
deep, a parameter with a negative dim, a JSON model missing keys: each is one PeError naming the
file, raised before anything is built. A cycle hung (a variable lookup walking the parents for
ever); the subprocess test of a cycle is in tests/cli/test_input_limits.py."""

import re
import json
import os
import shutil

import pytest

from pe_cli import fluid
from pe_cli.paddle import static as paddle_static
from pe_cli.base.errors import PeError
from pe_cli.base.limits import LimitError
from pe_cli.base.fluid_proto import messages


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small inference model (x -> fc) saved in Fluid's format."""
    d = str(tmp_path_factory.mktemp("model"))
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start), fluid.unique_name.guard():  # fc_0.w_0 whatever ran before
        y = fluid.layers.fc(fluid.layers.data("x", [4]), 3)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(start)
        fluid.io.save_inference_model(d, ["x"], [y], exe, main_program=main)
    return d


def _edit(saved, tmp_path, change):
    d = str(tmp_path / "m")
    shutil.copytree(saved, d)
    desc = messages()["ProgramDesc"]()
    with open(os.path.join(d, "__model__"), "rb") as f:
        desc.ParseFromString(f.read())
    change(desc)
    with open(os.path.join(d, "__model__"), "wb") as f:
        f.write(desc.SerializePartialToString())
    return d


def _load(d):
    with fluid.scope_guard(fluid.Scope()):
        return fluid.io.load_inference_model(d, fluid.Executor(fluid.CPUPlace()))


def _sub_block_op(block, idx):
    op = block.ops.add(type="conditional_block")
    op.attrs.add(name="sub_block", type=8, block_idx=idx)
    op.inputs.add(parameter="Cond", arguments=["x"])
    op.inputs.add(parameter="Input", arguments=["x"])


def _cycle(desc):
    desc.blocks.add(idx=1, parent_idx=2)
    desc.blocks.add(idx=2, parent_idx=1)
    _sub_block_op(desc.blocks[0], 1)
    op = desc.blocks[1].ops.add(type="scale")  # reads a name no block has: the lookup climbs
    op.inputs.add(parameter="X", arguments=["nowhere"])
    op.outputs.add(parameter="Out", arguments=["out"])


def _runs_itself(desc):
    desc.blocks.add(idx=1, parent_idx=0)
    _sub_block_op(desc.blocks[1], 1)
    _sub_block_op(desc.blocks[0], 1)


def _deep(desc):
    for i in range(1, 70):
        desc.blocks.add(idx=i, parent_idx=i - 1)


def _negative_weight(desc):
    var = next(v for v in desc.blocks[0].vars if v.name == "fc_0.w_0")
    del var.type.lod_tensor.tensor.dims[:]
    var.type.lod_tensor.tensor.dims.extend([-4, 3])


def _many_ops(desc):
    for _ in range(50):
        op = desc.blocks[0].ops.add(type="scale")
        op.inputs.add(parameter="X", arguments=["x"])
        op.outputs.add(parameter="Out", arguments=["x"])


def _var(desc, name):
    return next(v for v in desc.blocks[0].vars if v.name == name)


def _huge_weight(desc):  # 2^64 elements: int64's product is 0, which passed every size check
    tensor = _var(desc, "fc_0.w_0").type.lod_tensor.tensor
    del tensor.dims[:]
    tensor.dims.extend([2**32, 2**32])


def _huge_fill(desc):  # an op's shape attribute: fill_constant's [2^32, 2^32] output
    op = desc.blocks[0].ops.add(type="fill_constant")
    op.outputs.add(parameter="Out", arguments=["filled"])
    op.attrs.add(name="shape", type=11, longs=[2**32, 2**32])
    desc.blocks[0].vars.add().CopyFrom(_var(desc, "fc_0.tmp_0"))
    desc.blocks[0].vars[-1].name = "filled"


def _dtype_99(desc):  # protobuf reads a number its enum lacks as bool (0)
    tensor = _var(desc, "fc_0.w_0").type.lod_tensor.tensor
    tensor.ClearField("data_type")
    tensor.MergeFromString(b"\x08\x63")


def _declared_twice(desc):
    desc.blocks[0].vars.add().CopyFrom(_var(desc, "fc_0.w_0"))


def _without(kind):
    def change(desc):
        ops = [op for op in desc.blocks[0].ops if op.type != kind]
        del desc.blocks[0].ops[:]
        desc.blocks[0].ops.extend(ops)

    return change


def _fetch_column(desc):
    fetch = next(op for op in desc.blocks[0].ops if op.type == "fetch")
    next(a for a in fetch.attrs if a.name == "col").i = 10**9


def _text_attribute(desc):  # mul's x_num_col_dims as text: a ValueError inside the kernel before
    mul = next(op for op in desc.blocks[0].ops if op.type == "mul")
    attr = next(a for a in mul.attrs if a.name == "x_num_col_dims")
    attr.type, attr.s = 2, b"two"


@pytest.mark.parametrize(
    "change, env, message",
    [
        (_huge_weight, {}, "dims [4294967296, 4294967296] needs 67,108,864.0 TiB"),
        (_huge_fill, {}, "variable 'filled': an array of dims [4294967296, 4294967296] needs 67,108,864.0 TiB"),
        (_dtype_99, {}, "variable 'fc_0.w_0': data type 99 is not one of Fluid's (0 bool"),
        (_declared_twice, {}, "variable 'fc_0.w_0' is declared twice"),
        (_without("fetch"), {}, "the model has no fetch op"),
        (_fetch_column, {}, "(fetch): column 1000000000 is out of range; the 1 fetch ops' columns are 0..0"),
        (_text_attribute, {}, "(mul): attribute 'x_num_col_dims' holds text (two), where the op takes a number"),
        (_many_ops, {"PE_MAX_MODEL_VARS": "3"}, "the variable count is "),
        (_cycle, {}, "block 1 names block 2 as its parent; a parent must be an earlier block"),
        (_runs_itself, {}, "names block 1, which is not a later block than the op's own"),
        (_deep, {}, "the nesting depth of block 65 is 65, above pe's limit of 64"),
        (_negative_weight, {}, "variable 'fc_0.w_0': dims [-4, 3] hold -4"),
        (_many_ops, {"PE_MAX_MODEL_OPS": "40"}, "the op count is 5"),
        (_many_ops, {"PE_MAX_MODEL_BLOCKS": "0"}, "PE_MAX_MODEL_BLOCKS='0' is not a positive integer"),
    ],
    ids=[
        "dims-product-beyond-int64",
        "op-shape-beyond-int64",
        "unknown-dtype",
        "variable-declared-twice",
        "no-fetch-op",
        "fetch-column",
        "attribute-of-wrong-kind",
        "variable-count",
        "parent-cycle",
        "op-runs-its-own-block",
        "nesting-depth",
        "negative-parameter-dim",
        "op-count",
        "bad-limit-variable",
    ],
)
def test_a_damaged_or_oversized_model_is_one_error_naming_the_file(saved, tmp_path, monkeypatch, change, env, message):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    d = _edit(saved, tmp_path, change)
    with pytest.raises(PeError, match=re.escape(message)) as e:
        _load(d)
    assert message in str(e.value)
    assert "\n" not in str(e.value)
    if env.get("PE_MAX_MODEL_VARS"):
        assert "PE_MAX_MODEL_VARS=N" in str(e.value)
    if env.get("PE_MAX_MODEL_OPS"):
        assert isinstance(e.value, LimitError) and "PE_MAX_MODEL_OPS=N" in str(e.value)
        monkeypatch.setenv("PE_MAX_MODEL_OPS", "1000")  # raised by its variable, it loads
        assert _load(d)[1] == ["x"]
    elif not env:
        assert os.path.join(d, "__model__") in str(e.value)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda m: m.pop("vars"), "has no key 'vars'"),
        (lambda m: m["vars"][0].update(shape=[-3, 2], persistable=True), "dims [-3, 2] hold -3"),
        (lambda m: m.update(blocks=[{"idx": 1, "parent": 1, "vars": [], "ops": []}]), "block 1 names block 1"),
    ],
    ids=["missing-key", "negative-dim", "self-parent"],
)
def test_a_damaged_json_model_pe_wrote_is_one_error(tmp_path, change, message):
    model = {
        "format": "pe-inference-model",
        "feed": ["x"],
        "fetch": ["x"],
        "ops": [],
        "vars": [{"name": "x", "shape": [-1, 4], "dtype": "float32", "lod_level": 0, "persistable": False}],
    }
    change(model)
    (tmp_path / "__model__").write_text(json.dumps(model))
    with pytest.raises(PeError, match="__model__") as e:
        _load(str(tmp_path))
    assert message in str(e.value)


def test_a_fifo_as_the_model_file_is_refused_unread(tmp_path):
    os.mkfifo(tmp_path / "__model__")
    with pytest.raises(PeError, match="is a FIFO, not a regular file"):
        _load(str(tmp_path))


@pytest.mark.parametrize(
    "name, load",
    [
        ("m.pdparams", lambda d: fluid.io.load_program_state(os.path.join(d, "m"))),
        ("blob", lambda d: paddle_static.load_from_file(os.path.join(d, "blob"))),
        ("feed.proto", lambda d: fluid.DataFeedDesc(os.path.join(d, "feed.proto"))),
    ],
    ids=["pdparams", "load_from_file", "DataFeedDesc"],
)
def test_a_fifo_is_refused_unread_by_the_other_model_readers(tmp_path, name, load):
    os.mkfifo(tmp_path / name)
    with pytest.raises(PeError, match=f"{name} is (a FIFO, not a regular file|not a file .a FIFO)"):
        load(str(tmp_path))


@pytest.mark.parametrize(
    "make, load, message",
    [
        (
            lambda d: os.mkfifo(os.path.join(d, "m")),
            lambda d: fluid.io.load_program_state(os.path.join(d, "m")),
            "m is a FIFO, not a regular file or a directory, so pe does not read it as a checkpoint file",
        ),
        (lambda d: None, lambda d: fluid.io.load_program_state("/dev/null"), "/dev/null is a device"),
        (
            lambda d: None,
            lambda d: _load("/dev/null"),
            "/dev/null is a device, not a regular file or a directory, so pe does not read it as a model directory",
        ),
        (
            lambda d: os.mkfifo(os.path.join(d, "w")),
            lambda d: fluid.io.load_vars(
                fluid.Executor(fluid.CPUPlace()),
                d,
                vars=[fluid.Program().global_block().create_var(name="w", shape=[1])],
            ),
            "w is a FIFO, not a regular file or a directory, so pe does not read it as a variable file of 'w'",
        ),
    ],
    ids=["load_program_state-fifo", "load_program_state-device", "load_inference_model-device", "load_vars-fifo"],
)
def test_a_fifo_or_a_device_is_said_to_be_one_not_missing(tmp_path, make, load, message):
    """They were "does not exist" (os.path.isfile is false for them): the message says what they are."""
    make(str(tmp_path))
    with pytest.raises(PeError, match="is (a FIFO|a device), not a regular file or a directory") as e:
        load(str(tmp_path))
    assert message in str(e.value)


def test_a_name_that_is_not_utf8_is_one_error_naming_the_place(saved, tmp_path):
    """protobuf hands invalid UTF-8 back as bytes: a TypeError or UnicodeDecodeError deep inside before."""
    d = _edit(saved, tmp_path, lambda desc: None)
    path = os.path.join(d, "__model__")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data.replace(b"fc_0.tmp_0", b"fc\xe70.tmp_0"))
    with pytest.raises(PeError, match=r"__model__: block 0: a variable name b'fc\\xe70.tmp_0' is not UTF-8 text"):
        _load(d)
