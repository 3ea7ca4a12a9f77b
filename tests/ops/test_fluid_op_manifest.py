"""pe's op registry against Fluid 1.8.5's own op protos (tests/data/fluid-1.8.5-ops.json, read from the
1.8.5 wheel's ``core.get_all_op_protos()``): every op type Fluid registers is registered under its name,
declaring every attribute Fluid declares with Fluid's default (a float compared as the float32 Fluid
stores) and a type Fluid's accepts, checking that default no more strictly than Fluid, and every input
and output slot with Fluid's duplicable and dispensable flags. A program Fluid built or saved carries
every attribute of every op, defaults included: such a program builds on pe without a warning."""

import importlib
import json
import math
import pkgutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import tests.ops as _cases_pkg
from pe_cli.base.dtypes import convert_dtype
from pe_cli.framework import Program
from pe_cli.ops import registry
from pe_cli.ops.registry import COMMON_ATTRS, UndeclaredAttributeWarning
from tests.op_test import build_program

MANIFEST = json.loads((Path(__file__).parent.parent / "data" / "fluid-1.8.5-ops.json").read_text())["ops"]

# Where pe deliberately differs from Fluid's proto, and why. Each slot here is one pe accepts absent where
# Fluid's Python refuses it (Fluid's programs always give it, and load as they are).
DIFFERENCES = {
    ("fill_any_like", "attr", "dtype"): "pe's default None is Fluid's -1, X's dtype; the registry reads a given -1 "
    "as None",
    ("create_py_reader", "input", "blocking_queue"): "pe's py_reader keeps its queue in Python, no variable",
    ("create_py_reader", "output", "Out"): "one reader variable (Fluid's list holds one)",
    ("deformable_psroi_pooling", "input", "Trans"): "pe's layer leaves it out with no_trans",
    ("instance_norm", "input", "Scale"): "Paddle 2.x's instance_norm without weight",
    ("instance_norm", "input", "Bias"): "Paddle 2.x's instance_norm without bias",
    ("merge_lod_tensor", "input", "X"): "pe's gradient of split_lod_tensor merges without it",
    ("merge_lod_tensor_infer", "input", "X"): "as merge_lod_tensor's",
    ("pyramid_hash", "input", "WhiteList"): "pe's layer leaves it out for white_list_len 0",
    ("pyramid_hash", "input", "BlackList"): "pe's layer leaves it out for black_list_len 0",
    ("rnn_memory_helper_grad", "input", "Out"): "pe's backward of a step block gives it where it has it",
    ("rnn_memory_helper_grad", "input", "Out@GRAD"): "absent where the step's memory got no gradient",
    ("shuffle_batch", "input", "Seed"): "without it the startup_seed attribute seeds the order",
}

_TYPES = {  # Fluid's attribute type -> the Python values of that type
    "INT": int,
    "LONG": int,
    "FLOAT": (int, float),
    "STRING": str,
    "BOOLEAN": bool,
    "INTS": int,
    "LONGS": int,
    "FLOATS": (int, float),
    "STRINGS": str,
    "BOOLEANS": bool,
}


def _registered():
    return [t for t in sorted(MANIFEST) if t in set(registry.all_op_types())]


def _default(spec):
    return spec.default() if callable(spec.default) else spec.default


def _same(pe, fluid, fluid_type):
    """pe's default against Fluid's: floats as float32 (NaN equal), a dtype name against a VarType code."""
    if isinstance(fluid, list):
        return (
            isinstance(pe, (list, tuple))
            and len(pe) == len(fluid)
            and all(_same(p, f, fluid_type[:-1]) for p, f in zip(pe, fluid))
        )
    if isinstance(fluid, float) and isinstance(pe, (int, float)) and not isinstance(pe, bool):
        a, b = np.float32(pe), np.float32(fluid)
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(pe, str) and fluid_type == "INT" and isinstance(fluid, int):
        return convert_dtype(fluid) == pe if fluid >= 0 else False
    return (
        type(pe) is type(fluid)
        and pe == fluid
        or (isinstance(pe, int) and isinstance(fluid, int) and not isinstance(pe, bool) and pe == fluid)
    )


def _of_type(value, fluid_type, name):
    """Whether pe's default ``value`` is a value of Fluid's attribute type (a dtype may be a name)."""
    if value is None or fluid_type in ("BLOCK", "BLOCKS"):
        return True
    kind = _TYPES.get(fluid_type)
    if kind is None:
        return False
    items = value if fluid_type.endswith("S") else [value]
    if fluid_type.endswith("S") and not isinstance(value, (list, tuple)):
        return False
    dtype_name = name.endswith("dtype") and fluid_type == "INT"
    return all(
        (isinstance(v, str) and dtype_name) or (isinstance(v, kind) and (kind is bool) == isinstance(v, bool))
        for v in items
    )


class _Where:
    def __init__(self, type_):
        self.type = type_

    def describe(self):
        return f"op '{self.type}'"


def test_every_fluid_op_type_is_registered():
    missing = sorted(set(MANIFEST) - set(registry.all_op_types()))
    assert not missing, f"{len(missing)} of Fluid 1.8.5's {len(MANIFEST)} op types are not registered: {missing}"


def test_every_fluid_attribute_is_declared_with_fluids_default():
    problems = []
    for t in _registered():
        opdef = registry.get(t)
        for name, fluid_type, *default in MANIFEST[t]["attrs"]:
            if (t, "attr", name) in DIFFERENCES:
                continue
            spec = opdef.attrs.get(name)
            if spec is None:
                # (use_mkldnn / use_cudnn: any op takes them, and one whose proto declares them carries them,
                # so its grad op, which Fluid's grad kernels read them from, gets them)
                if name not in COMMON_ATTRS or name in ("use_mkldnn", "use_cudnn"):
                    problems.append(f"{t}: attribute {name} ({fluid_type}) is not declared")
                elif default and not _same(COMMON_ATTRS[name], default[0], fluid_type):
                    problems.append(f"{t}: common attribute {name}: {COMMON_ATTRS[name]!r} != Fluid's {default[0]!r}")
                continue
            value = _default(spec)
            if not _of_type(value, fluid_type, name):
                problems.append(f"{t}: attribute {name}: default {value!r} is no {fluid_type}")
            if default and not _same(value, default[0], fluid_type):
                problems.append(f"{t}: attribute {name}: default {value!r} != Fluid's {default[0]!r}")
    assert not problems, "\n".join(problems)


def test_long_attributes_take_floats_as_fluid_does():
    """Fluid's LONG and LONGS attributes (and only those) are ``long`` in pe: a float given for one is
    truncated toward zero, as Fluid's attribute checker converts it (it refuses a float for an INT)."""
    problems = []
    for t in _registered():
        opdef = registry.get(t)
        for name, fluid_type, *_ in MANIFEST[t]["attrs"]:
            spec = opdef.attrs.get(name)
            if spec is not None and spec.long != (fluid_type in ("LONG", "LONGS")):
                problems.append(f"{t}: attribute {name} is {fluid_type} in Fluid but long={spec.long} in pe")
    assert not problems, "\n".join(problems)


def test_fluids_defaults_pass_pes_checks():
    """A check no stricter than Fluid's accepts at least Fluid's own defaults (as Fluid stores them)."""
    problems = []
    for t in _registered():
        opdef = registry.get(t)
        for name, fluid_type, *default in MANIFEST[t]["attrs"]:
            spec = opdef.attrs.get(name)
            if spec is None or not default or (t, "attr", name) in DIFFERENCES or fluid_type.startswith("BLOCK"):
                continue
            value = (
                convert_dtype(default[0])
                if name.endswith("dtype") and isinstance(_default(spec), str) and default[0] >= 0
                else default[0]
            )
            try:
                spec.validate(_Where(t), name, value)
            except (ValueError, TypeError) as e:
                problems.append(str(e))
    assert not problems, "\n".join(problems)


def test_every_fluid_slot_exists_with_fluids_flags():
    problems = []
    for t in _registered():
        opdef = registry.get(t)
        for kind, slots in (("input", opdef.inputs), ("output", opdef.outputs)):
            pe = {s.name: s for s in slots}
            for name, duplicable, dispensable in MANIFEST[t][kind + "s"]:
                slot = pe.get(name)
                if slot is None:
                    problems.append(f"{t}: {kind} {name} is not declared")
                elif (slot.duplicable, slot.optional) != (duplicable, dispensable) and (
                    t,
                    kind,
                    name,
                ) not in DIFFERENCES:
                    problems.append(
                        f"{t}: {kind} {name}: duplicable/dispensable {slot.duplicable}/{slot.optional}, "
                        f"Fluid's {duplicable}/{dispensable}"
                    )
    assert not problems, "\n".join(problems)


def test_differences_name_real_slots_and_attributes():
    for t, kind, name in DIFFERENCES:
        assert t in MANIFEST and name in [e[0] for e in MANIFEST[t][kind + "s"]], (t, kind, name)


# -- a program as Fluid writes it: every attribute, defaults included, builds without a warning ------


def _fluid_defaults(t):
    return {
        name: default[0]
        for name, fluid_type, *default in MANIFEST[t]["attrs"]
        if default and not fluid_type.startswith("BLOCK")
    }


def _one_case_per_fluid_op():
    cases = {}
    for info in pkgutil.iter_modules(_cases_pkg.__path__):
        if info.name.startswith("cases_"):
            for case in importlib.import_module(f"tests.ops.{info.name}").CASES:
                if (
                    case.op in MANIFEST
                    and case.op not in cases
                    and not any(isinstance(v, list) and not v for v in case.inputs.values())
                ):
                    cases[case.op] = case
    return [cases[t] for t in sorted(cases)]


_CASES = _one_case_per_fluid_op()


@pytest.mark.parametrize("case", _CASES, ids=[c.op for c in _CASES])
def test_op_with_every_fluid_attribute_builds(case):
    """The op of an op case, given every attribute Fluid's proto has at Fluid's default (the case's own
    attributes over them), builds, with its gradient ops, and no attribute is dropped as undeclared."""
    from dataclasses import replace

    full = replace(case, attrs=dict(_fluid_defaults(case.op), **case.attrs))
    out_slots = case.outputs or tuple(case.ref(case.inputs, dict(registry.get(case.op).default_attrs(), **full.attrs)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndeclaredAttributeWarning)
        program, *_ = build_program(full, out_slots, with_loss=bool(case.grad))
    op = next(op for op in program.global_block().ops if op.type == case.op)
    missing = set(_fluid_defaults(case.op)) - set(op.attrs) - set(COMMON_ATTRS)
    assert not missing, f"{case.op}: Fluid's attributes {sorted(missing)} were dropped"


def test_an_undeclared_attribute_still_warns():
    program = Program()
    block = program.global_block()
    block.create_var(name="x", shape=[2, 3], dtype="float32")
    block.create_var(name="y")
    with pytest.warns(UndeclaredAttributeWarning, match="no_such_attr"):
        block.append_op("relu", {"X": ["x"]}, {"Out": ["y"]}, {"no_such_attr": 1})
    assert "no_such_attr" not in block.ops[-1].attrs


def test_layer_norm_reloads_its_float32_epsilon():
    """Fluid stores layer_norm's epsilon=1e-3 as the float32 0.0010000000474974513, inside its [0, 0.001]."""
    program = Program()
    block = program.global_block()
    block.create_var(name="x", shape=[2, 3], dtype="float32")
    for n in ("y", "m", "v"):
        block.create_var(name=n)
    block.append_op(
        "layer_norm",
        {"X": ["x"]},
        {"Y": ["y"], "Mean": ["m"], "Variance": ["v"]},
        {"epsilon": float(np.float32(1e-3)), "begin_norm_axis": 1},
    )
    with pytest.raises(ValueError, match="epsilon"):  # Fluid 1.8.5 raises on 0.0011 (its checker)
        block.append_op(
            "layer_norm",
            {"X": ["x"]},
            {"Y": ["y"], "Mean": ["m"], "Variance": ["v"]},
            {"epsilon": 0.0011, "begin_norm_axis": 1},
        )
