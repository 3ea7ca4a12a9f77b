"""The numba loop of std::sort (_stl_sort_loops.py, Paddle's CPU argsort on rows longer than 16 where values
repeat) against _stl_order.py's step-for-step sort: the same indices for every row of ties and NaN, ascending
and descending; both against Paddle 2.6.2's argsort in tests/data/paddle_oracle/edges26.json."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import _stl_order as _stl
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
    _loops().sort_rows(rows, largest, found)
    comp = _stl.paddle_comp("largest" if largest else "smallest")
    for r in range(len(rows)):
        assert list(found[r]) == _stl.sorted_row(rows[r].tolist(), comp), r
