"""transpose's numba loops (_transpose_loops.py: a swap of two adjacent runs of axes, swap_middle, and swap_tiles
where the rows after them are short) and their parallel twins against numpy's copy of the transposed view, on the
shapes that take them and on those left to numpy."""

import numpy as np
import pytest

from pe_cli.ops import registry
from pe_cli.shapes import reshaping
from pe_cli.shapes.reshaping import _swapped_blocks

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
    "shape, axis, blocks, loop",
    [
        ((64, 28, 4, 16), [0, 2, 1, 3], (64, 28, 4, 16), "swap_middle"),  # the attention's head split
        ((64, 4, 28, 16), [0, -2, 1, -1], (64, 4, 28, 16), "swap_middle"),  # and join, negative axes
        ((40, 30, 20), [1, 0, 2], (1, 40, 30, 20), "swap_middle"),  # the first two axes
        ((3, 5, 40, 6, 8), [0, 1, 3, 2, 4], (15, 40, 6, 8), "swap_middle"),
        ((64, 28, 4, 16), [2, 0, 1, 3], (1, 64 * 28, 4, 16), "swap_middle"),  # two axes past one
        ((64, 4, 40, 256), [2, 3, 0, 1], (1, 256, 10240, 1), "swap_tiles"),  # the beam search's memory: a matrix
        ((40, 256, 256), [2, 0, 1], (1, 10240, 256, 1), "swap_tiles"),
        ((8, 16, 12, 12), [0, 2, 3, 1], (8, 16, 144, 1), "swap_tiles"),  # NCHW -> NHWC
        ((8, 12, 12, 16), [0, 3, 1, 2], (8, 144, 16, 1), "swap_tiles"),  # and back
        ((300, 70, 3), [1, 0, 2], (1, 300, 70, 3), "swap_tiles"),  # rows of 3
        ((257, 1000), [1, 0], (1, 257, 1000, 1), "swap_tiles"),  # tiles cut short on both sides
    ],
)
def test_a_swap_of_two_runs_of_axes_runs_a_loop_and_gives_numpys_bits(shape, axis, blocks, loop, dtype, device_threads):
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[:3] = [np.nan, -0.0, np.inf]
    perm = [a % x.ndim for a in axis]
    assert _swapped_blocks(x.shape, x.dtype, perm) == blocks
    assert reshaping._permuted(x, perm, "X", "Out").loop == loop
    _transposed(x, axis)


@pytest.mark.parametrize(
    "x, axis",
    [
        (rng.standard_normal((64, 28, 4, 16)).astype(np.float32), [1, 3, 2, 0]),  # not a swap of two runs
        (rng.standard_normal((64, 28, 4, 16)).astype(np.float32), [0, 2, 3, 1][::-1]),
        (rng.standard_normal((64, 1, 28, 16)).astype(np.float32), [0, 2, 1, 3]),  # past 1 element: a view
        (rng.integers(0, 9, (64, 28, 4, 16)), [0, 2, 1, 3]),  # integers
        (rng.standard_normal((4, 5, 6)), [1, 0, 2]),  # small
    ],
)
def test_other_transposes_stay_numpys(x, axis):
    assert _swapped_blocks(x.shape, x.dtype, [a % x.ndim for a in axis]) is None
    _transposed(x, axis)


def test_a_strided_view_is_swapped_from_its_copy(device_threads):
    x = rng.standard_normal((64, 16, 28, 4)).astype(np.float32)[:, :, :, :2]  # rows of 2, 4 apart
    assert reshaping._permuted(x, [0, 2, 1, 3], "X", "Out").loop == "swap_tiles"
    _transposed(x, [0, 2, 1, 3])
