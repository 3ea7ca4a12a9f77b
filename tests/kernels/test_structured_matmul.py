"""The matmul family's structured kernels (shapes/matmul.py, kernels/cpu/matmul.py): every out-kernel fills every
buffer it is handed (its scratch too), with what the op's kernel computes; a step decides its Meta once per shape
signature; a run-time mismatch is refused in one line."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from pe_cli.shapes.linalg import matmul_v1_attrs
from tests.kernels.test_structured_kernels import CASES

rng = np.random.default_rng(9)
_GRADS = {"matmul": "matmul_grad", "matmul_v2": "matmul_grad", "bmm": "bmm_grad"}


def _filled(op, ins, attrs, ctx):
    """The op's out-kernel into buffers (outputs and scratch) of two sentinel patterns; the outputs of the first."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        specs = {**meta.outputs, **meta.scratch}
        outs = {} if meta.fresh else {s: np.full(shape, fill, dtype) for s, (shape, dtype) in specs.items()}
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for slot, (shape, dtype) in meta.outputs.items():
            assert outs[slot] is given[slot] if not meta.fresh else slot in outs, f"{op}: {slot}"
            assert outs[slot].shape == tuple(shape) and outs[slot].dtype == dtype and outs[slot].flags.c_contiguous
        answers.append({s: outs[s] for s in meta.outputs})
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot} not filled"
    return answers[0]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["matmul"], ids=[c.id for c in CASES["matmul"]])
def test_matmul_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of matmul, matmul_v2 and bmm (transposes, alpha, broadcast batches, 1-D operands, Fluid's
    heads and fused transpose), forward and gradient (each output alone, and both), in float64 and float32."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext()
    ins = {slot: np.asarray(value).astype(dtype) for slot, value in case.inputs.items()}
    outs = _filled(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[s].tobytes() == want[s].tobytes() for s in want)
    grad = _GRADS[case.op]
    if case.op == "matmul_v2":  # (its matmul_grad takes matmul's flags, as its grad maker writes them)
        attrs = matmul_v1_attrs(attrs, ins["X"].ndim, ins["Y"].ndim)
    gins = dict(ins, **{"Out@GRAD": rng.uniform(-1, 1, size=want["Out"].shape).astype(dtype)})
    for wanted in [("X@GRAD", "Y@GRAD"), ("X@GRAD",), ("Y@GRAD",)]:
        gctx = KernelContext(outputs=frozenset(wanted))
        douts = _filled(grad, gins, attrs, gctx)
        gwant = registry.get(grad).kernel("cpu")(gins, dict(attrs), gctx)
        assert set(douts) == set(gwant)
        assert all(douts[s].tobytes() == gwant[s].tobytes() for s in gwant)


def _step(op_type, attrs):
    program = Program()
    block = program.global_block()
    for name in ("x", "y", "out"):
        block.create_var(name=name)
    block.append_op(op_type, {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, attrs)
    return OpStep(block.ops[0], CPUPlace())


def test_a_matmul_v2_step_decides_its_meta_once_per_shape_signature():
    """matmul_v2's step decides its product once per shape and dtype of X and Y (two matrices the GEMM path, a
    stack times a matrix one GEMM of its rows, int64 numpy's matmul) and gives the op's kernel's bits."""
    step = _step("matmul_v2", {"trans_x": False, "trans_y": True})
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        decided = rule(attrs, ins, facts)
        calls.append((ins["X"].shape, decided.args[0].form, decided.args[0].path))
        return decided

    inner.meta = counted
    kernel = registry.get("matmul_v2").kernel("cpu")
    w = rng.standard_normal((3, 6)).astype(np.float32)
    feeds = [(rng.standard_normal((4, 6)).astype(np.float32), w) for _ in range(3)]
    feeds += [(rng.standard_normal((2, 3, 6)).astype(np.float32), w)] * 2 + [
        (np.arange(24).reshape(4, 6), w.astype(int))
    ]
    for x, y in feeds:
        values = Values({"x": x, "y": y})
        run_step(step, values)
        assert values["out"].tobytes() == kernel({"X": x, "Y": y}, dict(step.attrs))["Out"].tobytes()
    assert calls == [((4, 6), "matrix", "gemm"), ((2, 3, 6), "rows", "gemm"), ((4, 6), "matrix", "numpy")]


@pytest.mark.parametrize("op_type", ["matmul", "matmul_v2"])
def test_a_product_whose_shapes_do_not_fit_is_refused_in_one_line(op_type):
    """Dims the program left unknown that do not fit when the op runs: one line naming the op and the shapes."""
    step = _step(op_type, {})
    x, y = np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)
    with pytest.raises(Exception, match=rf": {op_type}: X \[2, 3\] and Y \[4, 5\] cannot multiply: X's columns \(3\) "):
        run_step(step, Values({"x": x, "y": y}))
    with pytest.raises(Exception, match=rf": {op_type}: batch dims \[2\] and \[3\] cannot broadcast$"):
        run_step(step, Values({"x": np.ones((2, 4, 3)), "y": np.ones((3, 3, 4))}))
