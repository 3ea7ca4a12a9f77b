"""The numba loop of std::sort (_stl_sort_loops.py, Paddle's CPU argsort on rows longer than 16 where values
repeat) against stl_order.py's step-for-step sort: the same indices for every row of ties and NaN, ascending
and descending; both against Paddle 2.6.2's argsort in tests/data/paddle_oracle/edges26.json."""

import numpy as np
import pytest

from tests.kernels import stl_order as _stl
from pe_cli.kernels.cpu.runtime.loops import lazy

_loops = lazy("_stl_sort_loops")


@pytest.mark.parametrize("n", [2, 16, 17, 33, 200])
@pytest.mark.parametrize("largest", [False, True])
def test_loop_sorts_as_libstdcxx(n, largest):
    rng = np.random.default_rng(n)
    rows = rng.integers(0, 4, (12, n)).astype(np.float64)
    rows[:4][rows[:4] == 3] = np.nan
    rows[4] = 1.0  # all equal
    rows[5] = np.arange(n)[::-1]  # descending: the partitions' worst case
    found = np.empty(rows.shape, np.int64)
    _loops().sort_rows(rows, int(largest), found)
    comp = _stl.paddle_comp("largest" if largest else "smallest")
    for r in range(len(rows)):
        assert list(found[r]) == _stl.sorted_row(rows[r].tolist(), comp), r


def _tied_rows(n, seed):
    rows = np.random.default_rng(seed).integers(0, 4, (10, n)).astype(np.float32)
    rows[:3][rows[:3] == 3] = np.nan
    rows[3] = 2.0
    return rows


@pytest.mark.parametrize("n", [1, 5, 20, 64, 65, 200, 400])
@pytest.mark.parametrize("mode,comp", [(0, "smallest"), (1, "largest")])
@pytest.mark.parametrize("sort_first", [True, False])
def test_top_k_v2_rows_as_libstdcxx(n, mode, comp, sort_first):
    """partial_sort where k * 64 < n, else nth_element (and sort of the first k - 1): every k."""
    rows = _tied_rows(n, n + mode)
    for k in sorted({k for k in (1, 2, 3, n // 2, n) if 0 < k <= n}):
        found = np.empty((len(rows), k), np.int64)
        _loops().top_k_v2_rows(rows, k, mode, sort_first, found)
        for r in range(len(rows)):
            want = [i for _, i in _stl.top_k_v2_row(rows[r].tolist(), k, _stl.paddle_comp(comp), sort_first)[:k]]
            assert list(found[r]) == want, (k, r)


@pytest.mark.parametrize("n", [3, 20, 200])
def test_partial_sort_rows_as_libstdcxx(n):
    """The top_k op's std::partial_sort comparing ``l > r`` (NaN never goes first)."""
    rows = _tied_rows(n, n)
    for k in (1, 2, n):
        found = np.empty((len(rows), k), np.int64)
        _loops().partial_sort_rows(rows, k, 2, found)
        for r in range(len(rows)):
            assert list(found[r]) == _stl.partial_sorted_row(rows[r].tolist(), k, _stl.paddle_comp("greater")), r
