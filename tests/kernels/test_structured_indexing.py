"""The structured kernels of the searching, sorting, rearranging and index-tensor ops (shapes/indexing.py,
rearranging.py, indexing_axis.py, statistics.py, bucketing.py, framing.py, broadcasting.py; their out-kernels in
kernels/cpu/, issue 95): where, argsort, unique, flip, roll, shape, take_along_axis, index_sample, kthvalue,
bincount, searchsorted, broadcast_tensors, index_put, frame, fold and the rest, and their gradients, write every
element of the buffers they are handed (a ``fresh`` variant: new C-contiguous arrays of their own, of the Meta's
shapes, -1 where the values give a length), with the op case's reference values, C-contiguous or Fortran-ordered;
a step decides its Meta once per shape signature."""

import inspect

import numpy as np
import pytest

from op_test import _attrs_with_defaults
from pe_cli.executor.plan import Values, run_step
from pe_cli.kernels.context import KernelContext
from pe_cli.ops import registry
from tests.kernels.test_structured_creation import _sentinels
from tests.kernels.test_structured_kernels import CASES, INDEXING_FAMILIES
from tests.kernels.test_structured_padding import _step

rng = np.random.default_rng(31)
# (ShiftsTensor's values replace roll's shifts before the rule runs: the op's kernel puts them there)
_CASES = [
    c for family in INDEXING_FAMILIES for c in CASES[family] if not set(c.inputs) & set(registry.get(c.op).attr_tensors)
]


def _arrays(value):
    return value if type(value) is list else [value]


def _run(op, ins, attrs, ctx):
    """The op's meta rule and out-kernel on ``ins`` into sentinel buffers of two patterns: its outputs, the buffers
    handed (each of a list slot's; a fresh variant's: new arrays sharing no input's memory), C-contiguous, of the
    Meta's shapes (-1: a length the values give) and dtypes, filled completely."""
    opdef = registry.get(op)
    meta = opdef.structured.meta(attrs, ins, ctx)
    inputs = [v for value in ins.values() for v in _arrays(value) if isinstance(v, np.ndarray)]
    answers = []
    for fill in (np.nan, -7.25):
        outs = {} if meta.fresh else {slot: _sentinels(spec, fill) for slot, spec in meta.outputs.items()}
        given = {slot: list(v) if type(v) is list else v for slot, v in outs.items()}
        assert opdef.structured.cpu(ins, outs, dict(attrs), meta) is None, f"{op}: the out-kernel returned something"
        if meta.fresh:
            assert set(outs) == set(meta.outputs)
            assert not any(np.shares_memory(a, v) for o in outs.values() for a in _arrays(o) for v in inputs)
        for slot, value in given.items():
            assert all(a is b for a, b in zip(_arrays(outs[slot]), _arrays(value))), f"{op}: {slot} not the buffer"
        answers.append(outs)
    for slot, spec in meta.outputs.items():
        for a, b, (shape, dtype) in zip(_arrays(answers[0][slot]), _arrays(answers[1][slot]), _arrays(spec)):
            known = len(a.shape) == len(shape) and all(d in (-1, n) for d, n in zip(shape, a.shape))
            assert known and a.dtype == dtype and a.flags.c_contiguous, (op, slot, a.shape, shape, a.dtype, dtype)
            assert a.tobytes() == b.tobytes(), f"{op} ({meta.variant}): {slot} not filled completely"
    return answers[0]


def _ctx(case, ins):
    counts = {"X@GRAD": len(ins["X"])} if case.op == "multiplex" else None
    return KernelContext(paddle2=case.paddle2, zero_dim=case.zero_dim, output_counts=counts)


def _laid_out(value, layout):
    if type(value) is list:
        return [_laid_out(v, layout) for v in value]
    value = np.asarray(value)
    return np.asfortranarray(value) if layout == "fortran" and value.ndim >= 2 else value


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (an int buffer filled with NaN, the sentinel)
@pytest.mark.parametrize("layout", ["c", "fortran"])
@pytest.mark.parametrize("case", _CASES, ids=[c.id for c in _CASES])
def test_out_kernels_fill_what_they_are_handed(case, layout):
    """Every op case of the families, forward and gradient, C- and Fortran-ordered: the outputs are the buffers
    handed (a fresh variant's: new arrays), every element written, the case's reference values."""
    attrs = _attrs_with_defaults(case)
    ins = {slot: _laid_out(value, layout) for slot, value in case.inputs.items()}
    ctx = _ctx(case, ins)
    outs = _run(case.op, ins, attrs, ctx)
    if case.ref is not None:
        for slot, want in case.ref(case.inputs, attrs).items():
            got, want = outs[slot], want
            for g, w in zip(got, want) if type(got) is list else [(got, want)]:
                np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol, err_msg=f"{case.id}: {slot}")
    grad_op = case.op + "_grad"
    if grad_op not in registry.all_op_types():
        return
    grad = registry.get(grad_op)
    given = dict(ins, **outs)
    for s in grad.inputs:
        if s.name.endswith("@GRAD"):
            out = outs[s.name[:-5]]
            douts = [
                rng.uniform(-1, 1, np.shape(o)).astype(np.asarray(o).dtype)
                for o in (out if type(out) is list else [out])
            ]
            given[s.name] = douts if type(out) is list else douts[0]
    gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
    gctx = KernelContext(paddle2=case.paddle2, zero_dim=case.zero_dim, output_counts=ctx.output_counts)
    douts = _run(grad_op, gins, attrs, gctx)
    assert set(douts) == {s.name for s in grad.outputs}


def test_where_rows_fill_the_buffer_and_step_decides_once_per_signature():
    """where with a Condition constant over trailing dims (the "rows" variant: Y, then X's rows) into its buffer;
    a step's Meta kept per shape signature, numpy's where's values on every run."""
    step = _step("where", {"Condition": ["c"], "X": ["x"], "Y": ["y"]}, {}, {"Out": ["out"]})
    inner = inspect.unwrap(step.kernel)
    for shape in ((4, 3, 5), (4, 3, 5), (2, 3, 5)):
        c = rng.uniform(size=shape[:2] + (1,)) > 0.5
        x, y = rng.standard_normal(shape).astype(np.float32), rng.standard_normal((5,)).astype(np.float32)
        values = Values({"c": c, "x": x, "y": y})
        run_step(step, values)
        assert values["out"].tobytes() == np.where(c, x, y).tobytes()
    assert len(inner.metas) == 2
    assert [m.variant for m, *_ in inner.metas.values()] == ["rows", "rows"]


def test_unique_and_where_index_give_lengths_their_values_decide():
    """unique's and where_index's outputs are as long as the values make them (their Meta's -1), new arrays."""
    x = np.array([3, 1, 3, 2, 1, 1], np.int64)
    step = _step("unique", {"X": ["x"]}, {"is_sorted": True, "dtype": "int32"}, {"Out": ["o"], "Counts": ["n"]})
    for feed, want, counts in (
        (x, [1, 2, 3], [3, 1, 2]),
        (x[:2].copy(), [1, 3], [1, 1]),
        (x + 1, [2, 3, 4], [3, 1, 2]),
    ):
        values = Values({"x": feed})
        run_step(step, values)
        assert values["o"].tolist() == want and values["n"].tolist() == counts and values["n"].dtype == np.int32
    assert len(inspect.unwrap(step.kernel).metas) == 2
    cond = np.array([[True, False], [False, True], [True, True]])
    meta = registry.get("where_index").structured.meta({}, {"Condition": cond}, KernelContext())
    assert meta.outputs["Out"] == ((-1, 2), np.dtype(np.int64)) and meta.fresh
    out = registry.get("where_index").kernel("cpu")({"Condition": cond}, {})["Out"]
    assert out.tolist() == [[0, 0], [1, 1], [2, 0], [2, 1]]


def test_argsort_ties_past_sixteen_keep_paddles_std_sort_order_in_a_step():
    """argsort of a row of 40 equal values (beyond std::sort's insertion sort): the indices Paddle's CPU
    std::sort leaves, the same through a step as through the op's kernel, a permutation of the row."""
    step = _step("argsort", {"X": ["x"]}, {"axis": -1, "descending": False}, {"Out": ["o"], "Indices": ["i"]})
    x = np.zeros((2, 40), np.float32)
    x[1, ::3] = 1
    values = Values({"x": x})
    run_step(step, values)
    want = registry.get("argsort").kernel("cpu")({"X": x}, {"axis": -1, "descending": False})
    assert values["i"].tobytes() == want["Indices"].tobytes()
    assert sorted(values["i"][0].tolist()) == list(range(40))
    assert np.array_equal(np.take_along_axis(x, values["i"], -1), values["o"])


@pytest.mark.parametrize("zero_dim", [False, True])
def test_size_and_shape_write_into_their_buffers(zero_dim):
    """size: int64 [1] (0-D in a Paddle 2.x program), shape: int32 [rank]; each written into the buffer handed."""
    x = np.ones((2, 0, 3), np.float32)
    ctx = KernelContext(zero_dim=zero_dim)
    size = _run("size", {"Input": x}, {}, ctx)["Out"]
    assert size.shape == (() if zero_dim else (1,)) and size.dtype == np.int64 and size.reshape(-1).tolist() == [0]
    shape = _run("shape", {"Input": x}, {}, ctx)["Out"]
    assert shape.tolist() == [2, 0, 3] and shape.dtype == np.int32


@pytest.mark.parametrize("layout", ["c", "fortran", "strided"])
def test_index_sample_takes_into_its_buffer_or_broadcasts_one_index_row(layout):
    """index_sample with a row of Index per row of X: numpy's take into the buffer handed ("take"), X of any layout;
    one Index row for all of X's: numpy's take_along_axis ("broadcast", fresh). Both take_along_axis' values."""
    wide = rng.standard_normal((4, 12)).astype(np.float32)
    x = {"c": np.ascontiguousarray(wide[:, :6]), "fortran": np.asfortranarray(wide[:, :6]), "strided": wide[:, ::2]}
    x = x[layout]
    for index, variant in ((np.array([[5, 0], [1, 1], [2, 3], [0, 0]]), "take"), (np.array([[4, 2, 2]]), "broadcast")):
        ins = {"X": x, "Index": index}
        meta = registry.get("index_sample").structured.meta({}, ins, KernelContext())
        assert meta.variant == variant
        out = _run("index_sample", ins, {}, KernelContext())["Out"]
        assert out.tobytes() == np.take_along_axis(x, index, axis=1).tobytes()
