"""transpose's numba loop (_transpose_loops.py: a swap of two adjacent axes) and its parallel twin
against numpy's copy of the transposed view, on the shapes that take it and on those left to numpy."""

import numpy as np
import pytest

from pe_cli.ops import registry
from pe_cli.shapes.reshaping import _adjacent_swap

rng = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    """The loop itself, compiled on its first call (no replica to run while a helper compiles it)."""
    from pe_cli.kernels.cpu.runtime import loops

    monkeypatch.setattr(loops, "EAGER", True)


def _transposed(x, axis):
    out = registry.get("transpose").kernel("cpu")({"X": x}, {"axis": axis})["Out"]
    assert out.flags.c_contiguous and out.dtype == x.dtype
    np.testing.assert_array_equal(out, np.transpose(x, axis))
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape, axis, blocks",
    [
        ((64, 28, 4, 16), [0, 2, 1, 3], (64, 28, 4, 16)),  # the attention's head split
        ((64, 4, 28, 16), [0, -2, 1, -1], (64, 4, 28, 16)),  # and join, negative axes
        ((40, 30, 20), [1, 0, 2], (1, 40, 30, 20)),  # the first two axes
        ((3, 5, 40, 6, 8), [0, 1, 3, 2, 4], (15, 40, 6, 8)),
    ],
)
def test_an_adjacent_swap_runs_the_loop_and_gives_numpys_bits(shape, axis, blocks, dtype, device_threads):
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:3] = [np.nan, -0.0, np.inf]
    assert _adjacent_swap(x.shape, x.dtype, [a % x.ndim for a in axis]) == blocks
    _transposed(x, axis)


@pytest.mark.parametrize(
    "x, axis",
    [
        (rng.standard_normal((64, 28, 4, 16)).astype(np.float32), [0, 1, 3, 2]),  # rows of 1: numpy's
        (rng.standard_normal((64, 28, 4, 16)).astype(np.float32), [2, 0, 1, 3]),  # not a swap of two
        (rng.standard_normal((64, 16, 28, 4)).astype(np.float32)[:, :, :, :2], [0, 2, 1, 3]),  # a view
        (rng.integers(0, 9, (64, 28, 4, 16)), [0, 2, 1, 3]),  # integers
        (rng.standard_normal((4, 5, 6)), [1, 0, 2]),  # small
    ],
)
def test_other_transposes_stay_numpys(x, axis):
    assert _adjacent_swap(x.shape, x.dtype, [a % x.ndim for a in axis]) is None
    _transposed(x, axis)
