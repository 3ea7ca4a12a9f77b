"""pe's registry against Paddle 2.6.2's op protos (tests/data/paddle-2.6.2-ops.json.gz: the 784 op types
``paddle.base.core.get_all_op_protos()`` gives in the 2.6.2 CPU wheel, /work/shared/api/paddle-2.6.2-ops.json
compressed). No attribute is ever ignored (docs/COMPAT.md, "Every attribute"):

- every attribute Paddle 2.6.2 declares on an op type pe has is declared by pe's op (or is one of
  ``registry.COMMON_ATTRS``), those Fluid 1.8.5 did not declare with Paddle's default;
- an attribute pe declares but does not compute with (``Attr.unsupported``) given any value but Paddle's
  default is refused in one line, wherever the op comes from (built, or read from a model file);
- a model file's attribute that the op does not have at all, or of a type framework.proto does not define
  for a value, is refused in one line naming the file, block, op, attribute and value."""

import gzip
import json
import re
from pathlib import Path

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.base.fluid_proto import messages
from pe_cli.framework import Program
from pe_cli.framework.operator import Operator
from pe_cli.ops import registry
from pe_cli.ops.attributes import is_default
from pe_cli.ops.registry import COMMON_ATTRS, UnsupportedAttributeError

DATA = Path(__file__).parent.parent / "data"
PADDLE26 = json.loads(gzip.decompress((DATA / "paddle-2.6.2-ops.json.gz").read_bytes()))["ops"]
FLUID185 = json.loads((DATA / "fluid-1.8.5-ops.json").read_text())["ops"]
SAVED = DATA / "paddle26_saved"


def _ours():
    return [t for t in sorted(PADDLE26) if t in set(registry.all_op_types())]


def _fluid_attrs(op_type):
    return {a[0] for a in FLUID185.get(op_type, {}).get("attrs", [])}  # ([name, type, default] there)


def test_every_paddle26_attribute_of_pes_op_types_is_declared():
    missing = [
        f"{t}.{a['name']}"
        for t in _ours()
        for a in PADDLE26[t]["attrs"]
        if a["name"] not in registry.get(t).attrs and a["name"] not in COMMON_ATTRS
    ]
    assert missing == []
    assert len(_ours()) >= 449


@pytest.mark.parametrize("op_type", _ours())
def test_paddle26_only_attributes_have_paddles_default(op_type):
    """An attribute 2.6 added that pe declares unfilled (``fill=False``: not put into an op not given it, so
    pe's programs and Fluid saves stay Fluid 1.8's) is declared with Paddle 2.6.2's default."""
    declared = registry.get(op_type).attrs
    for a in PADDLE26[op_type]["attrs"]:
        name = a["name"]
        if name in COMMON_ATTRS or name in _fluid_attrs(op_type) or name not in declared:
            continue
        spec = declared[name]
        if not spec.fill and "default" in a and a["default"] is not None and not spec.alias_of:
            assert is_default(spec.default() if callable(spec.default) else spec.default, a["default"]), (op_type, name)


def _other(default):
    """A value of the attribute's kind that is not ``default``."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 1
    if isinstance(default, float):
        return default + 0.5
    if isinstance(default, str):
        return default + "_other"
    if isinstance(default, (list, tuple)):
        return list(default) + [1]
    return 1


UNSUPPORTED = [
    (t, n) for t in sorted(registry.all_op_types()) for n, s in registry.get(t).attrs.items() if s.unsupported
]


def test_unsupported_attributes_are_paddle26s():
    assert len(UNSUPPORTED) >= 60
    for op_type, name in UNSUPPORTED:  # (a pe-only op sharing an op's attributes, fused_sgd's, has them too)
        assert op_type not in PADDLE26 or name in {a["name"] for a in PADDLE26[op_type]["attrs"]}, (op_type, name)


@pytest.mark.parametrize("op_type,name", UNSUPPORTED, ids=[f"{t}.{n}" for t, n in UNSUPPORTED])
def test_an_unsupported_attribute_other_than_paddles_default_is_refused(op_type, name):
    spec = registry.get(op_type).attrs[name]
    block = Program().global_block()
    default = spec.default() if callable(spec.default) else spec.default
    registry.check_attrs(Operator(block, op_type, {}, {}, {name: default}))  # the default runs
    value = _other(default)
    with pytest.raises(
        UnsupportedAttributeError,
        match=rf"attribute {name}={re.escape(repr(value))} is not implemented "
        rf"by pe \(.+\); pe runs {op_type} only with Paddle's default",
    ):
        registry.check_attrs(Operator(block, op_type, {}, {}, {name: value}))


def _model(tmp_path, case, edit):
    """The Paddle-saved model ``case`` with its ProgramDesc edited by ``edit(desc)``, in tmp_path."""
    desc = messages()["ProgramDesc"]()
    desc.ParseFromString((SAVED / case / "model.pdmodel").read_bytes())
    edit(desc)
    (tmp_path / "model.pdmodel").write_bytes(desc.SerializeToString())
    if (SAVED / case / "model.pdiparams").exists():
        (tmp_path / "model.pdiparams").write_bytes((SAVED / case / "model.pdiparams").read_bytes())
    return str(tmp_path / "model")


def _load(prefix):
    import pe_cli.paddle as paddle

    return paddle.static.load_inference_model(prefix, paddle.static.Executor(paddle.CPUPlace()))


def _op(desc, op_type):
    return next(op for op in desc.blocks[0].ops if op.type == op_type)


def _set(op, name, **field):
    attr = next((a for a in op.attrs if a.name == name), None) or op.attrs.add(name=name)
    for k, v in field.items():
        if isinstance(v, list):
            getattr(attr, k).extend(v)
        else:
            setattr(attr, k, v)
    return attr


def test_a_model_attribute_the_op_does_not_have_is_refused_in_one_line(tmp_path):
    prefix = _model(tmp_path, "linear", lambda d: _set(_op(d, "softmax"), "use_fancy_exp", type=6, b=True))
    with pytest.raises(
        PeError,
        match=r"model.pdmodel: block 0 op \d+ \(softmax\): attribute use_fancy_exp=True is "
        r"not an attribute of softmax",
    ) as e:
        _load(prefix)
    assert "\n" not in str(e.value)


def test_a_model_attribute_value_pe_does_not_take_is_refused_with_its_place(tmp_path):
    """A Paddle-saved pixel_shuffle whose data_format is a layout neither Paddle nor pe has: one line naming
    the file, block, op, attribute and value (the unsupported ones: the test above, through the same check)."""
    prefix = _model(
        tmp_path, "pixel_shuffle", lambda d: _set(_op(d, "pixel_shuffle"), "data_format", type=2, s="NDHWC")
    )
    with pytest.raises(PeError, match=r"model.pdmodel: block 0 op \d+ \(pixel_shuffle\).*data_format='NDHWC'"):
        _load(prefix)


def test_a_variable_given_attribute_is_refused_and_scalars_parse(tmp_path):
    """framework.proto 2.6's VAR / VARS (an attribute a variable gives) are refused by name; SCALAR parses."""
    prefix = _model(tmp_path, "linear", lambda d: _set(_op(d, "softmax"), "axis", type=13, var_name="some_var"))
    with pytest.raises(
        PeError,
        match=r"\(softmax\): attribute 'axis' is given by the variable\(s\) \['some_var'\] "
        r"\(framework.proto's VAR\)",
    ):
        _load(prefix)

    def scalar_axis(desc):
        op = _op(desc, "softmax")
        keep = [a for a in op.attrs if a.name != "axis"]
        del op.attrs[:]
        op.attrs.extend(keep)
        attr = op.attrs.add(name="axis", type=16)
        attr.scalar.type, attr.scalar.i = 2, -1  # Scalar LONG -1

    program, feeds, fetches = _load(_model(tmp_path, "linear", scalar_axis))
    assert next(op for op in program.global_block().ops if op.type == "softmax").attrs["axis"] == -1


def test_flip_roll_trace_take_paddle2s_attribute_names():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3, 4], "float32")
        block = main.global_block()
        outs = [block.create_var(name=n, dtype="float32") for n in ("f", "r", "r0", "t")]
        block.append_op(type="flip", inputs={"X": [x]}, outputs={"Out": [outs[0]]}, attrs={"axis": [1, 2]})
        block.append_op(type="roll", inputs={"X": [x]}, outputs={"Out": [outs[1]]}, attrs={"shifts": [1], "axis": [2]})
        block.append_op(type="roll", inputs={"X": [x]}, outputs={"Out": [outs[2]]}, attrs={"shifts": [5], "axis": []})
        block.append_op(
            type="trace", inputs={"Input": [x]}, outputs={"Out": [outs[3]]}, attrs={"offset": 1, "axis1": 1, "axis2": 2}
        )
    xv = np.arange(24, dtype="float32").reshape(2, 3, 4)
    f, r, r0, t = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": xv}, fetch_list=outs)
    np.testing.assert_array_equal(f, xv[:, ::-1, ::-1])
    np.testing.assert_array_equal(r, np.roll(xv, 1, 2))
    np.testing.assert_array_equal(r0, np.roll(xv.reshape(-1), 5).reshape(2, 3, 4))
    np.testing.assert_array_equal(t, np.trace(xv, 1, 1, 2))


def test_an_attribute_of_a_type_framework_proto_lacks_is_refused(tmp_path):
    """A type number framework.proto does not define (99): protobuf keeps it as an unknown field, so the
    attribute has no type; refused by name, never read as an INT (softmax's axis here)."""

    def edit(desc):
        op = _op(desc, "softmax")
        keep = [a for a in op.attrs if a.name != "axis"]
        del op.attrs[:]
        op.attrs.extend(keep)
        op.attrs.add(name="axis", type=0, i=77)

    prefix = _model(tmp_path, "linear", edit)
    raw = Path(prefix + ".pdmodel").read_bytes()
    needle = b"\x0a\x04axis\x10\x00\x18\x4d"  # name, type INT, i 77
    assert raw.count(needle) == 1
    Path(prefix + ".pdmodel").write_bytes(raw.replace(needle, b"\x0a\x04axis\x10\x63\x18\x4d"))  # type 99
    with pytest.raises(
        PeError,
        match=r"\(softmax\): attribute axis has a type \(99\) that framework.proto "
        r"does not define; pe refuses it rather than guess its value$",
    ):
        _load(prefix)


def test_a_variable_of_a_type_pe_lacks_is_refused(tmp_path):
    """Paddle 2.x's variable types pe has no values for (STRINGS, VOCAB, SPARSE_COO...): one line naming it."""

    def edit(desc):
        var = next(v for v in desc.blocks[0].vars if v.name == "x0")
        var.type.type = 27  # VOCAB

    with pytest.raises(PeError, match=r"block 0 variable 'x0' is of variable type 27 \(Paddle 2.x's VOCAB\)"):
        _load(_model(tmp_path, "linear", edit))
