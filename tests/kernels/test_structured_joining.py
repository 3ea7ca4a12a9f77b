"""The joining family's structured kernels (shapes/joining.py, kernels/cpu/joining.py, sum's elementwise.SUM): every
out-kernel fills every buffer it is handed, a list output's (split's Out, a gradient's X@GRAD) one buffer per
variable, with what the op's kernel computes; an executor step decides its Meta once per shape signature and
hands new buffers each run; sum's row-sparse and tensor-array forms make their own value (fresh)."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_kernels import CASES, _step

rng = np.random.default_rng(7)


def _buffers(meta, fill):
    """slot -> a buffer (a list output: a list of them) of the Meta's shapes and dtypes holding only ``fill``."""

    def one(shape, dtype):
        dtype = np.dtype(dtype)
        return np.full(shape, fill if dtype.kind in "fc" else 77 if np.isnan(fill) else -5, dtype)

    return {s: [one(*v) for v in spec] if type(spec) is list else one(*spec) for s, spec in meta.outputs.items()}


def _listed(outs):
    """(slot, index, array) of every output value, a list output's one by one."""
    return [(s, i, a) for s, v in sorted(outs.items()) for i, a in enumerate(v if isinstance(v, list) else [v])]


def _filled(op, ins, attrs, ctx=None):
    """The op's out-kernel into buffers of two sentinel patterns: it returns nothing, its outputs are the buffers
    it was handed (the same lists), every element written alike. The outputs of the first."""
    ctx = ctx or KernelContext()
    structured = registry.get(op).structured
    meta = structured.meta(attrs, ins, ctx)
    assert not meta.fresh, op
    answers = []
    for fill in (np.nan, -7.25):
        outs = _buffers(meta, fill)
        given = _listed(outs)
        assert structured.cpu(ins, outs, dict(attrs), meta) is None, op
        assert len(_listed(outs)) == len(given)
        for (slot, i, buffer), (_, _, got) in zip(given, _listed(outs)):
            assert got is buffer, f"{op}: {slot}[{i}] is not the buffer it was handed"
        answers.append(outs)
    for (slot, i, a), (_, _, b) in zip(_listed(answers[0]), _listed(answers[1])):
        assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot}[{i}] not filled completely"
    return answers[0]


def _same(got, want):
    assert [(s, i) for s, i, _ in _listed(got)] == [(s, i) for s, i, _ in _listed(want)]
    for (slot, i, a), (_, _, b) in zip(_listed(got), _listed(want)):
        assert a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"{slot}[{i}]"


_GRADS = {  # op -> (its grad op, its inputs from the forward's inputs and outputs and a random gradient)
    "concat": ("concat_grad", lambda ins, outs, d: {"X": ins["X"], "Out@GRAD": d(outs["Out"])}),
    "stack": ("stack_grad", lambda ins, outs, d: {"X": ins["X"], "Y@GRAD": d(outs["Y"])}),
    "unstack": ("unstack_grad", lambda ins, outs, d: {"Y@GRAD": [d(y) for y in outs["Y"]]}),
    "unbind": ("unbind_leading_grad", lambda ins, outs, d: {"X": ins["X"], "Out@GRAD": [d(o) for o in outs["Out"]]}),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES["joining"], ids=[c.id for c in CASES["joining"]])
def test_joining_out_kernels_fill_the_buffers_they_are_handed(case, dtype):
    """Every op case of concat, split, stack, unstack, unbind and sum (of dense values; attributes given as
    tensors: the op's kernel puts their values in its attributes first), and the grad ops of concat, stack,
    unstack and unbind, in float64 and float32 (an int case in its ints): the out-kernels fill every buffer they
    are handed with what the op's kernel computes (unbind's outputs as many as the case's: the first slices)."""
    counts = case.num_outputs if case.op == "unbind" else None
    attrs, ctx = _attrs_with_defaults(case), KernelContext(paddle2=case.paddle2, output_counts=counts)

    def cast(v):
        return v.astype(dtype) if v.dtype.kind == "f" else v

    ins = {s: [cast(a) for a in v] if isinstance(v, list) else cast(np.asarray(v)) for s, v in case.inputs.items()}
    outs = _filled(case.op, ins, attrs, ctx)
    _same(outs, registry.get(case.op).kernel("cpu")(ins, dict(attrs), ctx))
    if case.op in _GRADS:
        grad, grad_ins = _GRADS[case.op]
        gins = grad_ins(ins, outs, lambda a: rng.uniform(-1, 1, size=a.shape).astype(a.dtype))
        douts = _filled(grad, gins, attrs, ctx)
        _same(douts, registry.get(grad).kernel("cpu")(gins, dict(attrs), ctx))


def _counted(step):
    """The step's meta rule, counting the input shapes it is run for."""
    inner = inspect.unwrap(step.kernel)
    rule, calls = inner.meta, []

    def counted(attrs, ins, facts):
        calls.append(tuple(np.shape(a) for v in ins.values() for a in (v if isinstance(v, list) else [v])))
        return rule(attrs, ins, facts)

    inner.meta = counted
    return calls


def test_a_split_step_decides_its_meta_once_per_shape_signature_and_hands_new_buffers():
    """split's step (a list output): its rule runs once per shape and dtype of X, its parts are new C-contiguous
    arrays each run (a Fortran-ordered X too), equal to the op's kernel's."""
    attrs = {"axis": 1, "sections": [1, -1, 2]}
    step = _step("split", {"X": ["x"]}, {"Out": ["a", "b", "c"]}, attrs)
    calls, kernel = _counted(step), registry.get("split").kernel("cpu")
    full = dict(registry.get("split").default_attrs(), **attrs)
    feeds = [rng.standard_normal((4, 6)).astype(np.float32)] * 2 + [np.asfortranarray(rng.standard_normal((4, 6)))]
    feeds += [np.arange(10).reshape(2, 5)]
    seen = []
    for x in feeds:
        values = Values({"x": x})
        run_step(step, values)
        got = [values[n] for n in "abc"]
        want = kernel({"X": x}, dict(full))["Out"]
        assert all(
            g.flags.c_contiguous and g.tobytes() == w.tobytes() and g.shape == w.shape for g, w in zip(got, want)
        )
        assert not any(g is s for g in got for s in seen)
        seen += got
    assert calls == [((4, 6),), ((4, 6),), ((2, 5),)]  # (float32, float64, int64)


def test_a_concat_step_decides_its_meta_once_per_shape_signature():
    step = _step("concat", {"X": ["x", "y"]}, {"Out": ["o"]}, {"axis": 0})
    calls = _counted(step)
    feeds = [(np.ones((2, 3), np.float32), np.zeros((1, 3), np.float32))] * 3 + [(np.ones((2, 3)), np.ones((4, 3)))]
    for x, y in feeds:
        values = Values({"x": x, "y": y})
        run_step(step, values)
        assert values["o"].tobytes() == np.concatenate([x, y]).tobytes()
    assert calls == [((2, 3), (1, 3)), ((2, 3), (4, 3))]


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
def test_sum_out_kernel_fills_its_buffer_on_every_variant(n, dtype):
    """sum of 1 to 9 values of each dtype (the float loops' passes of four, a pair, a copy then in-place adds) and
    of values whose first two differ: its out-kernel fills Out with what its kernel gives."""
    xs = [(rng.uniform(-3, 3, (3, 5)) * 4).astype(dtype) for _ in range(n)]
    _same(_filled("sum", {"X": xs}, {}), registry.get("sum").kernel("cpu")({"X": xs}, {}))
    mixed = [xs[0], rng.uniform(-1, 1, 5).astype(dtype), *xs[1:]]
    _same(_filled("sum", {"X": mixed}, {}), registry.get("sum").kernel("cpu")({"X": mixed}, {}))


def test_sum_of_row_sparse_values_and_tensor_arrays_makes_its_own_value():
    """sum's row-sparse and tensor-array forms are fresh: a step of them hands no buffer and gives the rows merged
    (a SelectedRows), the dense sum where dense values are among them, the arrays summed slot by slot."""
    a = SelectedRows(np.array([0, 4, 0]), np.arange(9.0).reshape(3, 3), 7)
    b = SelectedRows(np.array([2, 4]), np.ones((2, 3)), 7)
    dense = rng.standard_normal((7, 3))
    meta = registry.get("sum").structured.meta({}, {"X": [a, b]}, KernelContext())
    assert meta.fresh and meta.variant == "sparse"
    step = _step("sum", {"X": ["a", "b"]}, {"Out": ["o"]})
    values = Values({"a": a, "b": b})
    run_step(step, values)
    assert isinstance(values["o"], SelectedRows) and values["o"].rows.tolist() == [0, 2, 4]
    assert values["o"].to_dense().tobytes() == (a.to_dense() + b.to_dense()).tobytes()
    values = Values({"a": a, "b": dense})
    run_step(step, values)
    assert values["o"].tobytes() == (a.to_dense() + dense).tobytes()
    arrays = [[np.ones((2, 2)), np.full((2, 2), 2.0)], [np.full((2, 2), 3.0), np.zeros((2, 2))]]
    got = registry.get("sum").kernel("cpu")({"X": arrays}, {})["Out"]
    assert [g.tolist() for g in got] == [[[4.0] * 2] * 2, [[2.0] * 2] * 2]


def test_concat_grad_refuses_parts_that_do_not_make_its_out_grad():
    """concat_grad called with X whose sizes along the axis do not sum to Out@GRAD's refuses in one line naming
    them (the old kernel handed out numpy's split of what was there: parts of other sizes than X's)."""
    ins = {"X": [np.ones((2, 3)), np.ones((2, 4))], "Out@GRAD": np.ones((2, 9))}
    with pytest.raises(Exception, match=r"concat_grad: the X sizes along axis 1, \[3, 4\], sum to 7, but Out@GRAD"):
        registry.get("concat_grad").kernel("cpu")(ins, {"axis": 1})
