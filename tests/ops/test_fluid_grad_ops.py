"""pe's grad ops against Fluid 1.8.5's own (tests/data/fluid-1.8.5-grad-ops.json, read from the 1.8.5 wheel's
gradient makers by tools/fluid_grad_ops.py): for each forward op type with an op case, the grad ops pe's
gradient maker makes (``core.get_grad_op_desc``) are Fluid's: the same op types in the same order, each
input and output slot holding what Fluid's holds (a forward input, output or the gradient of one), and
every attribute Fluid's grad op carries. A training program pe saves holds these ops, and Fluid runs it
with its own grad kernels, which read Fluid's slots and attributes (docs/COMPAT.md, "Fluid's file
formats")."""

import importlib
import json
import pkgutil
from pathlib import Path

import pytest

import tests.ops as _cases_pkg
from op_test import build_program
from pe_cli.base.dtypes import is_float
from pe_cli.ops.proto_slots import NOT_IN_FLUID18
from pe_cli.fluid.grad_op_desc import get_grad_op_desc
from pe_cli.ops import registry

RECORD = json.loads((Path(__file__).parent.parent / "data" / "fluid-1.8.5-grad-ops.json").read_text())
# attributes the model writer gives every op (pe_cli/framework/fluid_model_write.py)
_WRITTEN = {"op_role", "op_role_var", "op_namescope", "op_callstack", "op_device"}

# forward op type -> why pe's grad ops differ from Fluid's (strict: each turns into a failure to remove when fixed)
DIFFERENT = {
    "add_position_encoding": "pe makes scale where Fluid makes add_position_encoding_grad",
    "affine_grid": "affine_grid_grad reads Theta too",
    "c_allgather": "pe makes no grad op where Fluid makes c_reducescatter",
    "c_allreduce_sum": "pe makes no grad op where Fluid makes c_allreduce_sum",
    "conv2d": "conv2d_grad reads no Bias and writes no Bias@GRAD (Fluid's does, for its oneDNN kernel's fused bias, which its plain CPU kernels, as pe's, ignore)",
    "crop": "crop_grad reads Y too",
    "crop_tensor": "crop_tensor_grad reads Shape too",
    "data_norm": "data_norm_grad reads no bias (Fluid's does); data_norm_grad reads BatchSize, BatchSquareSum, BatchSum too; data_norm_grad writes no BatchSize@GRAD, BatchSquareSum@GRAD, BatchSum@GRAD (Fluid's does)",
    "deformable_psroi_pooling": "deformable_psroi_pooling_grad reads no TopCount (Fluid's does)",
    "gather": "gather_grad lacks attribute overwrite",
    "group_norm": "group_norm_grad reads no Bias, Y (Fluid's does); group_norm_grad reads Mean, X too",
    "gru_unit": "gru_unit_grad reads no Input (Fluid's does); gru_unit_grad reads Gate@GRAD, ResetHiddenPrev@GRAD too",
    "im2sequence": "im2sequence_grad reads Y too",
    "increment": "pe makes no grad op where Fluid makes increment",
    "lod_reset": "pe makes assign where Fluid makes lod_reset_grad",
    "lstm": "lstm_grad reads Cell@GRAD too",
    "lstmp": "lstmp_grad reads Cell@GRAD, Input too",
    "match_matrix_tensor": "match_matrix_tensor_grad reads no Tmp (Fluid's does)",
    "pad": "pad_grad reads X too",
    "pad_constant_like": "pad_constant_like_grad lacks attribute pad_value",
    "pixel_shuffle": "pixel_shuffle_grad reads X too",
    "prroi_pool": "prroi_pool_grad reads no Out (Fluid's does); prroi_pool_grad writes no ROIs@GRAD (Fluid's does)",
    "pyramid_hash": "pyramid_hash_grad reads no X_Temp_Out (Fluid's does); pyramid_hash_grad writes W@GRAD too",
    "roi_align": "roi_align_grad reads RoisNum too",
    "roi_pool": "roi_pool_grad reads RoisNum too",
    "sample_logits": "sample_logits_grad reads Logits too",
    "select_input": "pe makes select_input_grad where Fluid makes select_output",
    "select_output": "pe makes select_output_grad where Fluid makes select_input",
    "sequence_unpad": "sequence_unpad_grad reads Length too",
    "shuffle_channel": "shuffle_channel_grad reads X too",
    "split": "concat lacks attribute num, sections",
    "split_lod_tensor": "merge_lod_tensor reads no X (Fluid's does)",
    "split_selected_rows": "pe makes no grad op where Fluid makes sum",
    "stack": "stack_grad reads X too",
    "sum": "pe makes assign + assign + assign where Fluid makes scale + scale + scale",
    "unpool": "unpool_grad reads no Out (Fluid's does)",
    "var_conv_2d": "var_conv_2d_grad reads no Out (Fluid's does)",
}


def fullest_cases(op_types):
    """One op case per op type of ``op_types``: among the cases with a float input (an op of integer inputs
    only has no gradient to make), the one that gives the most slots (tools/fluid_grad_ops.py recorded
    Fluid's grad ops of each as this case makes the op)."""
    cases = {}
    for info in pkgutil.iter_modules(_cases_pkg.__path__):
        if info.name.startswith("cases_"):
            for case in importlib.import_module(f"tests.ops.{info.name}").CASES:
                if set(case.inputs) & set(NOT_IN_FLUID18.get(case.op, ())):
                    continue  # (a slot Fluid's op lacks: pe's, a Paddle 2.x program's)
                if case.op in op_types and (case.op not in cases or _rank(case) > _rank(cases[case.op])):
                    cases[case.op] = case
    return cases


def _rank(case):
    floats = any(is_float(getattr(v, "dtype", "float32")) for v in case.inputs.values() if not isinstance(v, list))
    return floats, _slots(case)


def _slots(case):
    return len([v for v in case.inputs.values() if not isinstance(v, list) or v]) + len(case.outputs or ())


_CASES = {t: c for t, c in fullest_cases(RECORD["ops"]).items() if RECORD["ops"][t]["layout"] == "case"}


def forward_op(case):
    attrs = dict(registry.get(case.op).default_attrs(), **case.attrs)
    out_slots = case.outputs or tuple(case.ref(case.inputs, attrs))
    program, *_ = build_program(case, out_slots, with_loss=False)
    return next(op for op in program.global_block().ops if op.type == case.op)


def _symbols(op):
    """name -> what it holds: ``in.X`` / ``out.Out`` for the op's variables."""
    out = {}
    for kind, slots in (("in", op.inputs), ("out", op.outputs)):
        for slot, names in slots.items():
            for n in names:
                out.setdefault(n, f"{kind}.{slot}")
    return out


def _symbol(name, symbols):
    grads = ""
    while name not in symbols and name.endswith("@GRAD"):
        name, grads = name[:-5], grads + "@GRAD"
    return symbols[name] + grads if name in symbols else "?"


def pe_grad_ops(op):
    """[(type, {slot: sorted symbols}, {slot: sorted symbols}, attribute names)] of pe's grad ops of ``op``."""
    symbols, out = _symbols(op), []
    for d in get_grad_op_desc(op.desc, set())[0]:
        slots = [
            {s: sorted({_symbol(a, symbols) for a in args(s)}) for s in names() if args(s)}
            for names, args in ((d.input_names, d.input), (d.output_names, d.output))
        ]
        out.append((d.type(), *slots, set(d.attr_names())))
    return out


def fluid_grad_ops(op):
    """Fluid's grad ops of ``op``'s type, restricted to the slots ``op`` gives (and to the gradients of its
    float inputs, which pe's autodiff asks for)."""
    given = {f"in.{s}" for s, n in op.inputs.items() if n} | {f"out.{s}" for s, n in op.outputs.items() if n}
    floats = {f"in.{s}@GRAD" for s, n in op.inputs.items() if n and is_float(op.block.var(n[0]).dtype)}

    def kept(symbol, output):
        base = symbol.split("@")[0]
        return base in given and (not output or "@" not in symbol or symbol in floats)

    out = []
    for g in RECORD["ops"][op.type]["grad_ops"]:
        slots = [
            {s: sorted({a for a in args if kept(a, output)}) for s, args in g[key].items()}
            for key, output in (("inputs", False), ("outputs", True))
        ]
        out.append((g["type"], *({s: v for s, v in slot.items() if v} for slot in slots), set(g["attrs"])))
    return out


def _compare(op_type):
    op = forward_op(_CASES[op_type])
    pe, fluid = pe_grad_ops(op), fluid_grad_ops(op)
    assert [p[:3] for p in pe] == [f[:3] for f in fluid], f"{op_type}: pe's grad ops\n{pe}\nFluid's\n{fluid}"
    missing = {p[0]: sorted(f[3] - p[3] - _WRITTEN) for p, f in zip(pe, fluid) if f[3] - p[3] - _WRITTEN}
    assert not missing, f"{op_type}: pe's grad ops lack Fluid's attributes {missing}"


@pytest.mark.parametrize(
    "op_type",
    [
        pytest.param(
            t,
            marks=[pytest.mark.xfail(strict=True, raises=AssertionError, reason=DIFFERENT[t])]
            if t in DIFFERENT
            else [],
        )
        for t in sorted(_CASES)
    ],
)
def test_grad_ops_are_fluids(op_type):
    _compare(op_type)


def test_differences_name_recorded_op_types():
    assert set(DIFFERENT) <= set(_CASES), sorted(set(DIFFERENT) - set(_CASES))
