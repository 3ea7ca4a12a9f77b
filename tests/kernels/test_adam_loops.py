"""Adam's numba loops (kernels/cpu/_adam_loops.py) against numpy's expression, to the bit: the dense
update into new arrays and over its own inputs (the executor's in-place updates), and lazy mode's row
update, duplicate rows summed in their order as SelectedRows.merged sums them; the numpy replicas a
first run uses give the same bits; what the loops cannot take (rows out of range, other dtypes) keeps
numpy's behaviour."""

import numpy as np
import pytest

from pe_cli.kernels.context import KernelContext
from pe_cli.base.selected_rows import SelectedRows
from pe_cli.kernels.cpu import _adam_loops, _replicas, optimizer
from pe_cli.kernels.cpu.runtime import loops as _numba
from pe_cli.kernels.cpu import selected_rows as sparse

rng = np.random.default_rng(5)
INT = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setattr(_numba, "EAGER", True)


def bits(a):
    return np.ascontiguousarray(a).view(INT[a.dtype])


def scalars(dtype):
    t = np.dtype(dtype).type
    return t(0.01 * np.sqrt(1 - 0.999**3) / (1 - 0.9**3)), t(0.9), t(0.999), t(1e-8)


def numpy_adam(p, g, m1, m2, lr_t, beta1, beta2, eps):
    """The dense update as Fluid writes it (pe's kernel before the loop), in the arrays' dtype."""
    one = p.dtype.type(1)
    a = beta1 * m1 + (one - beta1) * g
    b = beta2 * m2 + (one - beta2) * g * g
    return p - lr_t * (a / (np.sqrt(b) + eps)), a, b


def state(shape, dtype):
    p, g, m1 = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    return p, g, m1, (rng.random(shape) * 0.01).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_loop_is_numpys_expression_into_new_arrays_and_in_place(dtype):
    p, g, m1, m2 = state((37, 19), dtype)
    lr_t, beta1, beta2, eps = scalars(dtype)
    want = numpy_adam(p, g, m1, m2, lr_t, beta1, beta2, eps)
    one = p.dtype.type(1)
    for loop, in_place in ((_adam_loops.adam, _adam_loops.adam_in_place), (_replicas.adam, _replicas.adam_in_place)):
        outs = [np.empty_like(p) for _ in range(3)]
        loop(
            p.ravel(),
            g.ravel(),
            m1.ravel(),
            m2.ravel(),
            lr_t,
            beta1,
            beta2,
            one - beta1,
            one - beta2,
            eps,
            *(o.ravel() for o in outs),
        )
        mine = [a.copy() for a in (p, m1, m2)]  # in place: outputs are the inputs
        flat = [a.ravel() for a in mine]
        in_place(flat[0], g.ravel(), flat[1], flat[2], lr_t, beta1, beta2, one - beta1, one - beta2, eps)
        for got in (outs, mine):
            for w, o in zip(want, got):
                np.testing.assert_array_equal(bits(o), bits(w))


def sparse_case(dtype, height=50, width=6, k=40):
    rows = rng.integers(0, height, k).astype(np.int64)
    rows[5:9] = rows[4]  # duplicates, some adjacent, the rest scattered
    values = rng.standard_normal((k, width)).astype(dtype)
    p, _, m1, m2 = state((height, width), dtype)
    return SelectedRows(rows, values, height), p, m1, m2


def numpy_lazy(g, p, m1, m2, lr_t, beta1, beta2, eps):
    """Lazy adam as before the loop: merged rows (Fluid's MergeAdd), the update on those rows only."""
    rows, values = g.merged()
    p_out, m1_out, m2_out = p.copy(), m1.copy(), m2.copy()
    p_out[rows], m1_out[rows], m2_out[rows] = numpy_adam(p[rows], values, m1[rows], m2[rows], lr_t, beta1, beta2, eps)
    return p_out, m1_out, m2_out


def _lazy(p, g, m1, m2, lr_t, beta1, beta2, eps, in_place=False):
    """sparse.lazy_adam into p, m1 and m2 themselves (``in_place``, as adam's out-kernel hands them where the
    executor lets it) or into copies of them: {ParamOut, Moment1Out, Moment2Out}."""
    outs = (p, m1, m2) if in_place else tuple(a.copy() for a in (p, m1, m2))
    sparse.lazy_adam(p, g, m1, m2, lr_t, beta1, beta2, eps, *outs)
    return dict(zip(("ParamOut", "Moment1Out", "Moment2Out"), outs))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("in_place", [False, True])
def test_lazy_rows_loop_sums_duplicates_and_moves_only_their_rows(dtype, in_place, monkeypatch):
    g, p, m1, m2 = sparse_case(dtype)
    lr_t, beta1, beta2, eps = scalars(dtype)
    want = numpy_lazy(g, p, m1, m2, lr_t, beta1, beta2, eps)
    before = [a.copy() for a in (p, m1, m2)]
    calls = []
    monkeypatch.setattr(sparse, "lazy_adam_numpy", lambda *a: calls.append(a))  # the loop must run
    out = _lazy(p, g, m1, m2, lr_t, beta1, beta2, eps, in_place)
    assert not calls
    got = [out["ParamOut"], out["Moment1Out"], out["Moment2Out"]]
    for w, o, inp, old in zip(want, got, (p, m1, m2), before):
        np.testing.assert_array_equal(bits(o), bits(w))
        assert (o is inp) == in_place
        if not in_place:  # the inputs untouched: the update went to copies
            np.testing.assert_array_equal(bits(inp), bits(old))


def test_lazy_replica_gives_the_loops_bits():
    g, p, m1, m2 = sparse_case(np.float32)
    one = np.float32(1)
    lr_t, beta1, beta2, eps = scalars(np.float32)
    args = (
        g.rows,
        np.argsort(g.rows, kind="stable"),
        g.values,
        p,
        m1,
        m2,
        lr_t,
        beta1,
        beta2,
        one - beta1,
        one - beta2,
        eps,
    )
    results = []
    for fn in (_adam_loops.lazy_adam_rows, sparse.lazy_adam_numpy):
        outs = [a.copy() for a in (p, m1, m2)]
        fn(*args, *outs)
        results.append(outs)
    for a, b in zip(*results):
        np.testing.assert_array_equal(bits(a), bits(b))


@pytest.mark.parametrize("parts", [2, 3, 5, 64])
def test_lazy_rows_twin_gives_the_loops_bits_when_duplicates_straddle_its_blocks(parts):
    height, width = 30, 5
    rows = np.repeat(rng.integers(0, height, 12), 4).astype(np.int64)  # runs of 4 once sorted
    rng.shuffle(rows)
    values = rng.standard_normal((rows.size, width)).astype(np.float32)
    p, _, m1, m2 = state((height, width), np.float32)
    one = np.float32(1)
    lr_t, beta1, beta2, eps = scalars(np.float32)
    args = (rows, np.argsort(rows, kind="stable"), values, p, m1, m2, lr_t, beta1, beta2, one - beta1, one - beta2, eps)
    serial, twin = [a.copy() for a in (p, m1, m2)], [a.copy() for a in (p, m1, m2)]
    _adam_loops.lazy_adam_rows(*args, *serial)
    _adam_loops.lazy_adam_rows_parallel(*args, *twin, parts)
    for a, b in zip(serial, twin):
        np.testing.assert_array_equal(bits(a), bits(b))
    assert not np.array_equal(serial[0], p)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lazy_adam_on_the_devices_threads_gives_numpys_bits(dtype, device_threads, monkeypatch):
    monkeypatch.setattr(sparse, "LAZY_PARALLEL_MIN_ROWS", 1)
    g, p, m1, m2 = sparse_case(dtype)
    lr_t, beta1, beta2, eps = scalars(dtype)
    want = numpy_lazy(g, p, m1, m2, lr_t, beta1, beta2, eps)
    out = _lazy(p, g, m1, m2, lr_t, beta1, beta2, eps, True)
    for w, o in zip(want, (out["ParamOut"], out["Moment1Out"], out["Moment2Out"])):
        np.testing.assert_array_equal(bits(o), bits(w))


def test_lazy_rows_out_of_range_take_numpys_path():
    g, p, m1, m2 = sparse_case(np.float32)
    bad = SelectedRows(np.array([3, 50], np.int64), g.values[:2], 50)  # row 50 of a 50-row table
    with pytest.raises(IndexError, match="index 50 is out of bounds for axis 0 with size 50"):
        _lazy(p, bad, m1, m2, *scalars(np.float32))


def test_adam_kernel_dense_in_place_only_where_allowed():
    p, g, m1, m2 = state((8, 5), np.float32)
    ins = {
        "Param": p,
        "Grad": g,
        "Moment1": m1,
        "Moment2": m2,
        "LearningRate": np.array([0.01], np.float32),
        "Beta1Pow": np.array([0.9], np.float32),
        "Beta2Pow": np.array([0.999], np.float32),
    }
    attrs = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False}
    copy = optimizer.adam(ins, attrs)
    assert copy["ParamOut"] is not p and copy["Moment1Out"] is not m1
    lr_t = np.float32(0.01) * np.sqrt(np.float32(1) - np.float32(0.999)) / (np.float32(1) - np.float32(0.9))
    want = numpy_adam(p, g, m1, m2, lr_t, np.float32(0.9), np.float32(0.999), np.float32(1e-8))
    for key, w in zip(("ParamOut", "Moment1Out", "Moment2Out"), want):
        np.testing.assert_array_equal(bits(copy[key]), bits(w))
    same = optimizer.adam(ins, attrs, KernelContext(update_in_place=True))
    assert same["ParamOut"] is p and same["Moment2Out"] is m2
    for key, w in zip(("ParamOut", "Moment1Out", "Moment2Out"), want):
        np.testing.assert_array_equal(bits(same[key]), bits(w))
    aliased = dict(ins, Grad=m1)  # a gradient sharing memory with a moment: never written over
    out = optimizer.adam(aliased, attrs, KernelContext(update_in_place=True))
    assert out["Moment1Out"] is not m1


def test_merged_adds_a_rows_values_one_after_the_other():
    """Fluid's MergeAdd order: v0 + v1 + v2 ..., in the order listed (the loop's too)."""
    values = rng.standard_normal((9, 4)).astype(np.float32)
    rows = np.array([7, 2, 7, 7, 0, 2, 7, 7, 7], np.int64)
    got_rows, got = SelectedRows(rows, values, 8).merged()
    np.testing.assert_array_equal(got_rows, [0, 2, 7])
    for r, row_sum in zip(got_rows, got):
        listed = values[rows == r]
        want = listed[0].copy()
        for v in listed[1:]:
            want = want + v
        np.testing.assert_array_equal(bits(row_sum), bits(want))
