"""reduce_mean over one axis with values after it (the "mean_axis" variant, shapes/reduction.axis_split) and its
gradient over one axis: _reduce_loops.mean_axis and spread_mean_axis give numpy's bits (np.mean adds the axis's
slices in order, then divides by the count; the gradient is Out@GRAD / count copied over the axis), on shapes
drawn at random, float32 and float64; their numpy replicas (kernels/cpu/reduction.py) too."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import _reduce_loops as loops
from pe_cli.kernels.cpu import reduction
from pe_cli.shapes.reduction import axis_split


def _shapes(count=60, seed=3):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        rank = int(rng.integers(2, 5))
        shape = tuple(int(n) for n in rng.integers(1, 12, rank))
        if rng.random() < 0.25:
            shape = (*shape[:-1], int(rng.integers(2, 700)))
        axis = int(rng.integers(0, rank - 1))
        split = axis_split(shape, (axis,))
        if split is not None:
            yield shape, axis, split


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mean_axis_gives_numpys_bits(dtype):
    rng, checked = np.random.default_rng(5), 0
    for shape, axis, split in _shapes():
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        want = np.mean(x, axis=axis).reshape(split[0], split[2])
        out, replica = np.empty_like(want), np.empty_like(want)
        loops.mean_axis(x.reshape(split), out)
        reduction._mean_axis_numpy(x.reshape(split), replica)
        assert out.tobytes() == want.tobytes() == replica.tobytes(), (shape, axis)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_spread_mean_axis_gives_numpys_bits(dtype):
    rng = np.random.default_rng(7)
    for shape, axis, split in _shapes(20):
        dout = rng.standard_normal((split[0], split[2])).astype(dtype)
        want = np.empty(split, dtype)
        np.copyto(want, (dout / split[1]).reshape(split[0], 1, split[2]))  # (the spread_mean variant's numpy)
        dx, replica = np.empty(split, dtype), np.empty(split, dtype)
        loops.spread_mean_axis(dout, dx)
        reduction._spread_axis_numpy(dout, replica)
        assert dx.tobytes() == want.tobytes() == replica.tobytes(), (shape, axis)


def test_one_value_after_the_axis_is_numpys_pairwise_sum_not_this_loop():
    assert axis_split((128, 4096, 1), (1,)) is None  # (numpy sums such an axis pairwise)
    assert axis_split((4, 0, 3), (1,)) is None and axis_split((4, 5, 3), (0, 1)) is None
    assert axis_split((4, 5, 3), (1,)) == (4, 5, 3)
