"""top_k's numba loop (_top_k_loops.py, rows wider than 4k) against a stable sort of -x: the same
indices and values, ties lowest index first, -0.0 equal to 0.0, infinities, rows holding NaN flagged; and the
kernel's indices those of Paddle's std::partial_sort (comparing ``l > r``) of every row, emulated
(tests/kernels/stl_order.py; Paddle 2.6's own top_k op on rows with ties: tests/data/paddle_oracle/edges26.json)."""

import numpy as np
import pytest

from tests.kernels import stl_order as _stl
from pe_cli.kernels.cpu.runtime.loops import lazy
from pe_cli.ops import registry

_top_k_loops = lazy("_top_k_loops")

rng = np.random.default_rng(11)


def top_k(ins, attrs):
    return registry.get("top_k").kernel("cpu")(ins, attrs)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    """The loop itself, compiled on its first call."""
    from pe_cli.kernels.cpu.runtime import loops

    monkeypatch.setattr(loops, "EAGER", True)


def _rows(dtype):
    x = rng.integers(-6, 6, (7, 3, 200)).astype(dtype)  # many ties in every row
    x[0, 0] = rng.standard_normal(200)
    x[1, 0, [5, 50, 120]] = np.inf
    x[1, 1, :] = -np.inf
    x[2, 0, :] = 0.0
    x[2, 0, 1::2] = -0.0
    x[3, 0, 17] = np.nan  # NaN: the row is sorted whole
    x[3, 1, :190] = np.nan  # fewer than k numbers
    x[5, 0, 150] = np.nan  # NaN in a block after the k best are held
    x[5, 1, 199] = 7  # the best in the last, short block of 64
    x[4, 0, ::-1] = np.arange(200)  # descending: every value enters
    x[4, 1] = np.arange(200)  # ascending: each pushes the rest down
    return x


def _paddle_order(x, k):
    rows = x.reshape(-1, x.shape[-1])
    comp = _stl.paddle_comp("greater")
    return np.array([_stl.partial_sorted_row(r.tolist(), k, comp) for r in rows]).reshape(x.shape[:-1] + (k,))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [2, 11, 49])
def test_loop_gives_the_stable_sorts_top_k(dtype, k):
    x = _rows(dtype)
    rows = x.reshape(-1, 200)
    idx, nan_rows = np.zeros((rows.shape[0], k), np.int64), np.zeros(rows.shape[0], np.bool_)
    tied = np.zeros(rows.shape[0], np.bool_)
    _top_k_loops().top_k_rows(rows, k, idx, nan_rows, tied)
    np.testing.assert_array_equal(nan_rows, np.isnan(rows).any(axis=1))
    want = np.argsort(-rows, axis=-1, kind="stable")[:, :k]
    np.testing.assert_array_equal(idx[~nan_rows], want[~nan_rows])
    top = np.take_along_axis(rows, want, axis=1)  # a kept value again in the row: flagged
    again = (top[:, 1:] == top[:, :-1]).any(axis=1) | ((rows >= top[:, -1:]).sum(axis=1) > k)
    np.testing.assert_array_equal(tied[~nan_rows], again[~nan_rows])


@pytest.mark.parametrize("parts", [2, 3, 21])
def test_the_parallel_twin_gives_the_loops_rows(parts):
    """Runs of rows on numba's threads (a beam search's top_k on a device's two): each row's indices, NaN flag and
    tie flag the serial loop's, whatever the runs (21 parts: one row each)."""
    rows = _rows(np.float32).reshape(-1, 200)
    got, want = [(np.zeros((21, 11), np.int64), np.zeros(21, np.bool_), np.zeros(21, np.bool_)) for _ in range(2)]
    _top_k_loops().top_k_rows(rows, 11, *want)
    _top_k_loops().top_k_rows_parallel(rows, 11, *got, parts)
    for mine, theirs in zip(got, want):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("k", [1, 2, 11, 49])
def test_kernel_gives_paddles_partial_sort(dtype, k):
    x = _rows(dtype)
    out = top_k({"X": x}, {"k": k})
    want = _paddle_order(x, k)
    np.testing.assert_array_equal(out["Indices"], want)
    np.testing.assert_array_equal(out["Out"], np.take_along_axis(x, want, axis=-1))
    assert out["Indices"].dtype == np.int64


def test_integers_keep_the_partitioned_path():
    x = rng.integers(-5, 5, (6, 100))
    out = top_k({"X": x}, {"k": 3})
    np.testing.assert_array_equal(out["Indices"], _paddle_order(x, 3))


def test_no_rows_gives_no_indices():
    out = top_k({"X": np.zeros((0, 3, 50), np.float32)}, {"k": 4})
    assert out["Indices"].shape == (0, 3, 4) and out["Out"].shape == (0, 3, 4)
