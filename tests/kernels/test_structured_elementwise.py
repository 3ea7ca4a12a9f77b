"""The binary elementwise ops as structured kernels (pe_cli/shapes/elementwise.py, kernels/cpu/elementwise_binary.py):
their meta rules choose the variant once per shape signature (the bias add's loop, the threads' rows forms,
numpy's broadcast, the integer forms of Fluid 1.8's and Paddle 2.x's meanings); each out-kernel fills every
buffer it is handed, hands over numpy's new arrays in its fresh variants and leaves the gradients that are
Out@GRAD as they are (aliases, no copy); the bias add's step and its gradient's run their meta once per
signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.kernels.context import KernelContext
from pe_cli.kernels.cpu import elementwise_binary
from pe_cli.kernels.cpu.runtime import loops
from pe_cli.ops import registry
from pe_cli.shapes import elementwise as meta_rules
from tests.ops import cases_elementwise

rng = np.random.default_rng(21)
OPS = [f"elementwise_{op}" for op in meta_rules.OPS]
CASES = [c for c in cases_elementwise.CASES if c.op in OPS or c.op == "grad_add"]  # (grad_add: add's kernel)
SHAPES = [  # (X, Y, axis): one per variant the rules choose
    ((3, 5), (3, 5), -1),
    ((4, 3, 5), (3,), 1),
    ((1, 6, 2), (6,), 1),
    ((3, 4), (2, 3, 4), -1),
    ((2, 3, 4), (1, 3, 1), -1),
    ((0, 3), (3,), -1),
    ((3,), (3, 1), 0),  # X placed in Y as [3, 1]
    ((), (), -1),
    ((600, 300), (600, 1), -1),
    ((600, 300), (300,), -1),
]


def _filled(op, ins, attrs, ctx):
    """The op's out-kernel run into sentinel buffers of two patterns: checks every buffer handed is filled
    completely (a fresh variant's outputs are new arrays of no input's memory; an alias is its input), and
    returns the outputs of the first."""
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    answers = []
    for fill in (np.nan, -7.25):
        outs = {slot: ins[src] for slot, src in meta.aliases.items()}
        for slot, (shape, dtype) in meta.outputs.items():
            if slot not in outs and not meta.fresh:
                outs[slot] = np.full(shape, fill if np.dtype(dtype).kind in "fc" else 77, dtype)
        given = dict(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None
        for slot, (shape, dtype) in meta.outputs.items():
            got = outs[slot]
            if slot in meta.aliases:
                assert got is ins[meta.aliases[slot]]
            elif meta.fresh:
                assert not any(np.shares_memory(got, v) for v in ins.values() if v is not None)
            else:
                assert got is given[slot], f"{op}: {slot} is not the buffer it was handed"
            assert got.shape == tuple(shape) and got.dtype == dtype and got.flags.c_contiguous
        answers.append(outs)
    for slot in answers[0]:
        assert answers[0][slot].tobytes() == answers[1][slot].tobytes(), f"{op} ({meta.variant}): {slot}"
    return answers[0], meta


def _numpy_forward(op, x, y, axis):
    xa, ya = elementwise_binary.align_both(x, y, axis)
    return elementwise_binary._UFUNCS[op.removeprefix("elementwise_")](xa, ya).astype(x.dtype)


def _grad_ins(op, ins, out):
    dout = rng.uniform(-1, 1, size=out.shape).astype(out.dtype)
    return dict(ins, Out=out, **{"Out@GRAD": dout})


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of the family, forward and gradient: the buffers filled completely, the values the
    op's kernel gives (numpy's bits forward, where the case is of floats)."""
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2)
    ins = {s: np.asarray(v) for s, v in case.inputs.items()}
    if all(v.dtype.kind == "f" for v in ins.values()):
        ins = {s: v.astype(dtype) for s, v in ins.items()}
    outs, _ = _filled(case.op, ins, attrs, ctx)
    want = registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx)
    assert all(outs[s].tobytes() == np.asarray(want[s]).tobytes() for s in want)
    grad = case.op + "_grad"
    if case.grad and "Out" in outs and grad in registry.all_op_types():
        gins = _grad_ins(case.op, ins, outs["Out"])
        douts, _ = _filled(grad, gins, attrs, ctx)
        gwant = registry.get(grad).kernel("cpu")(gins, dict(attrs), ctx)
        assert all(douts[s].tobytes() == np.asarray(gwant[s]).tobytes() for s in gwant)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("op", ["elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_max"])
@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{x}-{y}-{a}" for x, y, a in SHAPES])
def test_every_variant_gives_numpys_bits(shapes, op, dtype):
    """Each variant (a same-shape add, the bias add, the threads' rows forms, numpy's broadcast) fills its
    buffers with numpy's values bit for bit; the gradients fill theirs, Out@GRAD passed through where it is
    the gradient."""
    xs, ys, axis = shapes
    x, y = (rng.uniform(-3, 3, size=s).astype(dtype) for s in (xs, ys))
    attrs = {"axis": axis}
    outs, meta = _filled(op, {"X": x, "Y": y}, attrs, KernelContext())
    assert outs["Out"].tobytes() == _numpy_forward(op, x, y, axis).tobytes(), meta.variant
    gins = _grad_ins(op, {"X": x, "Y": y}, outs["Out"])
    douts, gmeta = _filled(op + "_grad", gins, attrs, KernelContext())
    assert douts["X@GRAD"].shape == xs and douts["Y@GRAD"].shape == ys
    assert gins["Out@GRAD"].shape == outs["Out"].shape  # (no input shaped over)


def _meta(op, xs, ys, axis=-1, dtype="float32", paddle2=False, grad=False):
    ins = {"X": np.empty(xs, dtype), "Y": np.empty(ys, dtype)}
    if grad:
        ins["Out@GRAD"] = np.empty(meta_rules.out_shape(xs, ys, axis), dtype)
    rule = (meta_rules.GRAD if grad else meta_rules.FORWARD)[op]
    return rule({"axis": axis}, ins, KernelContext(paddle2=paddle2))


def test_the_rules_choose_each_variant_once_from_shapes_dtypes_and_facts():
    assert _meta("add", (8, 10), (8, 10)).variant == "same"
    bias = _meta("add", (8, 10), (10,))
    assert (bias.variant, bias.loop, bias.args, dict(bias.inplace)) == ("mid", "add_mid", ((8, 10, 1),), {"Out": "X"})
    sub = _meta("sub", (8, 10), (10,))  # (one row for all: the broadcast loop)
    assert (sub.variant, sub.loop, sub.args) == ("middle", "middle", ((1, 8, 10),))
    mask = _meta("add", (8, 2, 16, 16), (8, 1, 1, 16))  # (an attention's mask over its scores)
    assert (mask.variant, mask.args) == ("middle", ((8, 32, 16),))
    assert _meta("sub", (8, 10), (10,), dtype="int64").variant == "numpy"
    assert _meta("sub", (0, 10), (10,)).variant == "numpy"  # (empty)
    assert _meta("add", (8, 10), (10,), dtype="int64").variant == "numpy"
    assert _meta("add", (3, 4), (2, 3, 4)).outputs["Out"][0] == (2, 3, 4)
    assert _meta("add", (2, 3), (4,)).outputs["Out"][0] == (2, 3)  # (numpy refuses the values)
    wide = _meta("mul", (1 << 10, 1 << 8), (1 << 10, 1), dtype="float64")
    assert (wide.variant, wide.args) == ("middle", ((1 << 10, 1 << 8, 1),))  # (one value a row)
    assert _meta("add", (1 << 10, 1 << 8), (1 << 8,)).variant == "mid"  # (a bias over many rows: add_mid)
    assert _meta("add", (1 << 18,), (1 << 18,)).variant == "same"
    assert _meta("add", (1 << 18, 1), (1 << 18,), axis=0).variant == "middle"  # (one run of rows: split)
    assert _meta("div", (4,), (4,), dtype="int32").variant == "truncated"
    assert _meta("div", (4,), (4,)).variant == "middle"
    assert _meta("div", (4,), (4,), dtype="float16").variant == "numpy"
    assert _meta("floordiv", (4,), (4,), dtype="int64").variant == "truncated"
    assert _meta("floordiv", (4,), (4,), dtype="int64", paddle2=True).variant == "floored"
    assert _meta("mod", (4,), (4,), dtype="int64").variant == "remainder"
    assert _meta("mod", (4,), (4,), paddle2=True).variant == "remainder_paddle2"
    grad = _meta("add", (8, 10), (10,), grad=True)
    assert (grad.variant, grad.loop, dict(grad.aliases)) == ("mid", "sum_outer", {"X@GRAD": "Out@GRAD"})
    assert dict(_meta("add", (8, 10), (8, 10), grad=True).aliases) == {"X@GRAD": "Out@GRAD", "Y@GRAD": "Out@GRAD"}
    sub = _meta("sub", (8, 10), (10,), grad=True)
    assert (sub.variant, sub.args, dict(sub.aliases)) == ("middle", ((1, 8, 10),), {"X@GRAD": "Out@GRAD"})
    assert _meta("sub", (8, 10), (8, 1), grad=True).variant == "numpy"  # (numpy sums a row pairwise)
    mul = _meta("mul", (8, 10), (8, 10), grad=True)
    assert (mul.variant, mul.args, dict(mul.aliases)) == ("middle", ((8, 1, 10),), {})
    assert meta_rules.ON_THREADS == loops.PARALLEL_MIN_ELEMENTS


def test_a_bias_add_step_decides_its_meta_once_per_shape_signature():
    """elementwise_add's and elementwise_add_grad's steps run their meta rules once per shape and dtype of
    their inputs, give the op's kernels' values, and the gradient's X@GRAD is Out@GRAD itself."""
    program = Program()
    block = program.global_block()
    for name in ("x", "b", "y", "dy", "dx", "db"):
        block.create_var(name=name)
    block.append_op("elementwise_add", {"X": ["x"], "Y": ["b"]}, {"Out": ["y"]}, {"axis": 1})
    ins = {"X": ["x"], "Y": ["b"], "Out@GRAD": ["dy"]}
    block.append_op("elementwise_add_grad", ins, {"X@GRAD": ["dx"], "Y@GRAD": ["db"]}, {"axis": 1})
    steps = [OpStep(op, CPUPlace()) for op in block.ops]
    calls = []
    for step in steps:
        inner = inspect.unwrap(step.kernel)

        def counted(attrs, ins, facts, rule=inner.meta, op=step.op.type):
            calls.append((op, ins["X"].shape))
            return rule(attrs, ins, facts)

        inner.meta = counted
    b = rng.normal(size=5).astype(np.float32)
    for rows in (4, 4, 6, 4):
        x, dy = (rng.normal(size=(rows, 5)).astype(np.float32) for _ in range(2))
        values = Values({"x": x, "b": b, "dy": dy})
        for step in steps:
            run_step(step, values)
        assert values["y"].tobytes() == (x + b).tobytes()
        assert values["dx"] is dy
        want = registry.get("elementwise_add_grad").kernel("cpu")({"X": x, "Y": b, "Out@GRAD": dy}, {"axis": 1})
        assert values["db"].tobytes() == want["Y@GRAD"].tobytes()
    assert calls == [("elementwise_add", (4, 5)), ("elementwise_add_grad", (4, 5))] + [
        ("elementwise_add", (6, 5)),
        ("elementwise_add_grad", (6, 5)),
    ]


def test_integer_division_keeps_each_releases_meaning_in_a_step():
    """floordiv and mod of ints: truncated and X's sign in Fluid 1.8's meaning, floored and Y's sign in
    Paddle 2.x's (the op's fact, decided with its meta); a zero divisor refused in one line each run."""
    x, y = np.array([7, -7, 7, -7], np.int64), np.array([2, 2, -2, -2], np.int64)
    for paddle2, div, mod in ((False, [3, -3, -3, 3], [1, -1, 1, -1]), (True, [3, -4, -4, 3], [1, 1, -1, -1])):
        ctx = KernelContext(paddle2=paddle2)
        assert (
            registry.get("elementwise_floordiv").kernel("cpu")({"X": x, "Y": y}, {"axis": -1}, ctx)["Out"].tolist()
            == div
        )
        assert registry.get("elementwise_mod").kernel("cpu")({"X": x, "Y": y}, {"axis": -1}, ctx)["Out"].tolist() == mod
    for op in ("elementwise_floordiv", "elementwise_mod", "elementwise_div"):
        with pytest.raises(Exception, match=f"{op}: Y holds a zero; integer division by zero"):
            registry.get(op).kernel("cpu")({"X": x, "Y": np.array([1, 0, 1, 1])}, {"axis": -1})
