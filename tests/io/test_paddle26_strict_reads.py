"""No attribute of a Paddle 2.x program is ever guessed (issue 96, item 4; issue 99's "accepted nonsense"):
models Paddle 2.6.2 saved (tests/data/paddle26_saved/, tools/paddle26_saved_models.py) with their
ProgramDesc edited to hold what no Paddle writer writes are refused in one line naming the file, the op
(type and index), the attribute and the value, never run with a default:

- a ``Scalar`` attribute (framework.proto's SCALAR, SCALARS) of a type framework.proto does not define
  (read as 0 before: the linear model's scale 0 gave every output 0);
- an enum-valued attribute outside the values Paddle 2.6.2 distinguishes (``padding_algorithm: BOGUS``
  ran as EXPLICIT, ``data_format: BOGUS`` as NCHW);
- an ``op_version_map`` entry newer than the version pe implements for the op type."""

from paths import REPO
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.fluid_proto import messages

SAVED = Path(REPO) / "tests" / "data" / "paddle26_saved"


def _model(tmp_path, case, edit):
    """The Paddle-saved model ``case`` with its ProgramDesc edited by ``edit(desc)``, in tmp_path."""
    desc = messages()["ProgramDesc"]()
    desc.ParseFromString((SAVED / case / "model.pdmodel").read_bytes())
    edit(desc)
    (tmp_path / "model.pdmodel").write_bytes(desc.SerializePartialToString())
    if (SAVED / case / "model.pdiparams").exists():
        (tmp_path / "model.pdiparams").write_bytes((SAVED / case / "model.pdiparams").read_bytes())
    return str(tmp_path / "model")


def _load(prefix):
    import pe_cli.paddle as paddle

    return paddle.static.load_inference_model(prefix, paddle.static.Executor(paddle.CPUPlace()))


def _op(desc, op_type):
    return next(op for op in desc.blocks[0].ops if op.type == op_type)


def _index(desc, op_type):
    return next(n for n, op in enumerate(desc.blocks[0].ops) if op.type == op_type)


def _replace(op, name, attr_type):
    """The op's attribute ``name`` replaced by a new, empty one of framework.proto type ``attr_type``."""
    keep = [a for a in op.attrs if a.name != name]
    del op.attrs[:]
    op.attrs.extend(keep)
    return op.attrs.add(name=name, type=attr_type)


def _scalar_of_type(number, value=2.5):
    """A Scalar message's bytes whose type is ``number`` (one framework.proto may not define: protobuf keeps
    it as an unknown field, as it reads it from a file), holding the double ``value``."""
    return b"\x08" + bytes([number]) + b"\x21" + np.float64(value).tobytes()


# -- SCALAR / SCALARS -------------------------------------------------------------------------------------


def _scale_as_scalar(scalar):
    def edit(desc):
        _replace(_op(desc, "scale"), "scale", 16).scalar.MergeFromString(scalar)

    return edit


def test_every_scalar_kind_of_paddle26_reads_as_its_value(tmp_path):
    """framework.proto's four Scalar kinds: FLOAT64 (3) and LONG (2) as scale's factor, read as the value."""
    for number, value, field in ((3, 2.5, "r"), (2, 3, "i")):
        scalar = messages()["Scalar"](type=number, **{field: value}).SerializeToString()
        program, _, _ = _load(_model(tmp_path, "linear", _scale_as_scalar(scalar)))
        got = next(op for op in program.global_block().ops if op.type == "scale").attrs["scale"]
        assert got == value and type(got) is type(value)


@pytest.mark.parametrize("number", [0, 5, 99])
def test_a_scalar_of_a_type_framework_proto_lacks_is_refused(tmp_path, number):
    """Before: the Scalar's type read as BOOLEAN and its value as False, so scale multiplied by 0."""
    prefix = _model(tmp_path, "linear", _scale_as_scalar(_scalar_of_type(number)))
    n = _index(messages()["ProgramDesc"].FromString((Path(prefix + ".pdmodel")).read_bytes()), "scale")
    with pytest.raises(PeError) as e:
        _load(prefix)
    assert str(e.value) == (
        f"{prefix}.pdmodel: block 0 op {n} (scale): attribute 'scale' holds a Scalar of type {number}, which "
        "framework.proto (Paddle 2.6.2: 1 BOOLEAN, 2 LONG, 3 FLOAT64, 4 COMPLEX128) does not define, so pe "
        "cannot read its value"
    )


def test_a_scalars_attribute_with_one_unknown_scalar_is_refused(tmp_path):
    def edit(desc):
        attr = _replace(_op(desc, "scale"), "scale", 17)
        attr.scalars.add(type=3, r=1.0)
        attr.scalars.add().MergeFromString(_scalar_of_type(7))

    with pytest.raises(PeError, match=r"\(scale\): attribute 'scale' holds a Scalar of type 7, which"):
        _load(_model(tmp_path, "linear", edit))


def test_a_scalar_attribute_without_its_scalar_is_refused(tmp_path):
    with pytest.raises(PeError, match=r"\(scale\): attribute 'scale' holds no Scalar value, which"):
        _load(_model(tmp_path, "linear", lambda d: _replace(_op(d, "scale"), "scale", 16)))


def test_pe_infer_refuses_an_unknown_scalar_in_one_line(tmp_path):
    prefix = _model(tmp_path, "linear", _scale_as_scalar(_scalar_of_type(9)))
    data = tmp_path / "in.npz"
    np.savez(data, x0=np.ones([3, 8], "float32"))
    run = subprocess.run(
        [sys.executable, "-m", "pe_cli", "infer", prefix, "--data", str(data), "-o", str(tmp_path / "o.npz")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    assert run.returncode != 0 and not (tmp_path / "o.npz").exists()
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "(scale): attribute 'scale' holds a Scalar of type 9" in run.stderr


# -- op_version_map -------------------------------------------------------------------------------------


def _set_version(desc, op_type, version):
    """The map's entry for ``op_type`` set to ``version`` (None: removed, so the op type is version 0)."""
    keep = [p for p in desc.op_version_map.pair if p.op_name != op_type]
    del desc.op_version_map.pair[:]
    desc.op_version_map.pair.extend(keep)
    if version is not None:
        desc.op_version_map.pair.add(op_name=op_type).op_version.version = version


def test_pes_op_versions_are_paddle26s():
    """registry.op_version: every op type pe has that Paddle 2.6.2 versions, at 2.6.2's version; the others 0."""
    import gzip
    import json

    from pe_cli.ops import registry

    manifest = json.loads(gzip.decompress((SAVED.parent / "paddle-2.6.2-ops.json.gz").read_bytes()))["ops"]
    ours = [t for t in manifest if t in set(registry.all_op_types())]
    assert {t: registry.op_version(t) for t in ours} == {t: manifest[t].get("version", 0) for t in ours}
    assert registry.op_version("matmul_v2") == 0 and registry.op_version("roi_align") == 3


@pytest.mark.parametrize("op_type, version", [("matmul_v2", 99), ("softmax", 1), ("elementwise_add", 2)])
def test_an_op_version_newer_than_pes_is_refused(tmp_path, op_type, version):
    """Before: the map was not read, and matmul_v2 of version 99 ran as version 0."""
    prefix = _model(tmp_path, "linear", lambda d: _set_version(d, op_type, version))
    desc = messages()["ProgramDesc"].FromString(Path(prefix + ".pdmodel").read_bytes())
    n = _index(desc, op_type)
    with pytest.raises(PeError) as e:
        _load(prefix)
    ours = {"matmul_v2": 0, "softmax": 0, "elementwise_add": 1}[op_type]
    assert str(e.value) == (
        f"{prefix}.pdmodel: block 0 op {n} ({op_type}): the program's op_version_map gives {op_type} version "
        f"{version}, newer than the version pe implements ({ours}, Paddle 2.6.2's); pe refuses it rather than "
        "run the op with an older meaning"
    )


def test_a_newer_version_of_an_op_type_the_program_lacks_is_not_read(tmp_path):
    """Paddle's map lists every op type it versions: a later Paddle's conv2d does not concern a linear model."""
    rec = np.load(SAVED / "linear" / "record.npz")
    program, feeds, fetches = _load(_model(tmp_path, "linear", lambda d: _set_version(d, "conv2d", 7)))
    import pe_cli.paddle as paddle

    (got,) = paddle.static.Executor(paddle.CPUPlace()).run(program, feed={"x0": rec["in:x0"]}, fetch_list=fetches)
    np.testing.assert_allclose(got, rec["out:0"], rtol=1e-5, atol=1e-5)


def _fluid_meanings(x):
    """leaky_relu(alpha 2) and hard_shrink(threshold -0.5) as Fluid 1.8 (and Paddle before version 1) compute."""
    return np.fmax(x, 2 * x), x * (x < 0.5) + x * (x > -0.5)


def test_an_older_op_version_keeps_its_older_meaning(tmp_path):
    """static_activations_2x with leaky_relu and hard_shrink at version 0 (a Paddle 2.x before their fixes):
    their meanings then (Fluid 1.8's), elu's Paddle 2.6's; as recorded (version 1), Paddle 2.6.2's. Saved
    again by pe, the model keeps its map and so its meanings."""
    import pe_cli.paddle as paddle

    rec = np.load(SAVED / "static_activations_2x" / "record.npz")
    x = rec["in:x"]

    def old(desc):
        _set_version(desc, "leaky_relu", None)
        _set_version(desc, "hard_shrink", 0)

    prefix = _model(tmp_path, "static_activations_2x", old)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = _load(prefix)
        got = exe.run(program, feed={"x": x}, fetch_list=fetches)
        block = program.global_block()
        again = str(tmp_path / "again")
        paddle.static.save_inference_model(again, [block.var(f) for f in feeds], fetches, exe, program=program)
    for want, value in zip(_fluid_meanings(x), got[:2]):
        np.testing.assert_allclose(value, want, rtol=1e-6)
    assert not np.allclose(got[0], rec["out:0"]) and not np.allclose(got[1], rec["out:1"])
    np.testing.assert_allclose(got[2], rec["out:2"], rtol=1e-5, atol=1e-6)
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = _load(again)
        got = exe.run(program, feed={"x": x}, fetch_list=fetches)
    for want, value in zip(_fluid_meanings(x), got[:2]):
        np.testing.assert_allclose(value, want, rtol=1e-6)


# -- enum attributes ------------------------------------------------------------------------------------

# (case, op type, attribute, value): values Paddle 2.6.2 runs as a default without a word
# (tools/paddle26_enum_attrs.py: BOGUS padding as EXPLICIT, "same" as EXPLICIT, "nhwc" as NCHW) or refuses
# in a kernel (softmax's layout); pe refused none of them before
ENUM_CASES = [
    ("max_pool", "pool2d", "padding_algorithm", "BOGUS", ["EXPLICIT", "SAME", "VALID"]),
    ("max_pool", "pool2d", "data_format", "BOGUS", ["NCHW", "NHWC", "AnyLayout"]),
    ("avg_pool3d_ceil_inclusive", "pool3d", "padding_algorithm", "same", ["EXPLICIT", "SAME", "VALID"]),
    ("avg_pool3d_ceil_inclusive", "pool3d", "data_format", "NCHW", ["NCDHW", "NDHWC", "AnyLayout"]),
    ("conv_bn", "conv2d", "padding_algorithm", "BOGUS", ["EXPLICIT", "SAME", "VALID"]),
    ("conv_bn", "conv2d", "data_format", "nhwc", ["NCHW", "NHWC", "AnyLayout"]),
    ("conv_transpose", "conv2d_transpose", "padding_algorithm", "BOGUS", ["EXPLICIT", "SAME", "VALID"]),
    ("max_pool_mask", "max_pool2d_with_index", "padding_algorithm", "BOGUS", ["EXPLICIT", "SAME", "VALID"]),
    ("max_pool_mask", "max_pool2d_with_index", "data_format", "NHWC", ["NCHW"]),
    ("linear", "softmax", "data_format", "BOGUS", ["AnyLayout", "NCHW", "NHWC"]),
    (
        "upsample_bilinear",
        "bilinear_interp_v2",
        "interp_method",
        "BOGUS",
        ["bilinear", "nearest", "bicubic", "trilinear"],
    ),
    ("upsample_bilinear", "bilinear_interp_v2", "data_layout", "BOGUS", ["NCHW", "NHWC", "AnyLayout"]),
]


@pytest.mark.parametrize("case, op_type, name, value, accepted", ENUM_CASES, ids=lambda v: str(v)[:20])
def test_an_enum_attribute_paddle_does_not_distinguish_is_refused(tmp_path, case, op_type, name, value, accepted):
    def edit(desc):
        _replace(_op(desc, op_type), name, 2).s = value

    prefix = _model(tmp_path, case, edit)
    n = _index(messages()["ProgramDesc"].FromString(Path(prefix + ".pdmodel").read_bytes()), op_type)
    with pytest.raises(PeError) as e:
        _load(prefix)
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith(f"{prefix}.pdmodel: block 0 op {n} ({op_type}): ")
    assert f"attribute {name}={value!r} is not one of {accepted}" in text


def test_every_enum_attribute_pe_reads_has_its_values():
    """Every text attribute of pe's ops whose value picks a behaviour (a layout, padding, mode, method, kind)
    takes a closed set of values: "BOGUS" is refused, never run as the default. The exceptions hold names
    (files, endpoints, tables, equations, messages, dtypes) or steer a backend pe does not have."""
    from pe_cli.ops import registry
    from pe_cli.framework import Program
    from pe_cli.framework.operator import Operator

    names_not_enums = {"mkldnn_data_type", "dtype", "out_dtype", "endpoint", "entry", "table_class"}
    names_not_enums |= {"lookup_table_version", "place", "equation", "message", "str_value", "atol", "rtol"}
    block = Program().global_block()
    open_ended = []
    for op_type in registry.all_op_types():
        for name, spec in registry.get(op_type).attrs.items():
            if not isinstance(spec.default, str) or spec.default == "" or name in names_not_enums:
                continue
            try:
                spec.validate(Operator(block, op_type, {}, {}, {}), name, "BOGUS")
            except ValueError:
                continue
            open_ended.append((op_type, name))
    assert open_ended == []


@pytest.mark.parametrize("name, value", [("mode", "x"), ("data_format", "AnyLayout")])
def test_pad2d_refuses_what_fluids_kernel_ran_as_a_default(name, value):
    """Fluid 1.8.5 built and ran pad2d with mode 'x' (as constant) and data_format AnyLayout (as NHWC); its
    layer writes neither. pe refuses both (tests/ops/test_fluid_build_checks.py's REFUSED_ON_PURPOSE)."""
    import pe_cli.fluid as fluid

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [1, 2, 3, 3], "float32")
        out = main.global_block().create_var(name="out", dtype="float32")
        with pytest.raises(ValueError, match=rf"attribute {name}={value!r} is not one of \["):
            main.global_block().append_op(
                type="pad2d", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"paddings": [1, 1, 1, 1], name: value}
            )
