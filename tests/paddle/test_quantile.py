"""paddle.quantile / paddle.nanquantile (pe_cli/paddle/tensor_quantile.py) in static mode equal
numpy's quantile / nanquantile: one and several q, one and several axes, keepdim, the interpolations,
NaNs (NaN out of quantile, skipped by nanquantile, NaN from an all-NaN slice); bad q, axis and x are
Paddle's errors."""

import warnings

import numpy as np
import pytest

from pe_cli import paddle

rng = np.random.RandomState(5)
X = rng.rand(4, 7)
X[1, 2] = np.nan
X[3, :] = np.nan
CASES = [
    (paddle.quantile, np.quantile, 0.5, 1, False, "linear"),
    (paddle.quantile, np.quantile, [0.25, 0.9], -1, True, "linear"),
    (paddle.nanquantile, np.nanquantile, [0.3, 0.7], 1, False, "linear"),
    (paddle.nanquantile, np.nanquantile, 0.2, [0, 1], True, "linear"),
    (paddle.nanquantile, np.nanquantile, 0.6, None, False, "linear"),
    (paddle.nanquantile, np.nanquantile, 0.4, 1, False, "lower"),
    (paddle.nanquantile, np.nanquantile, 0.4, 1, False, "higher"),
    (paddle.nanquantile, np.nanquantile, 0.5, 1, False, "midpoint"),
    (paddle.nanquantile, np.nanquantile, 0.4, 1, False, "nearest"),
]


def test_quantiles_equal_numpys():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [4, 7], "float64")
        outs = [fn(x, q, axis=axis, keepdim=keep, interpolation=how) for fn, _, q, axis, keep, how in CASES]
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": X}, fetch_list=outs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for out, (_, ref, q, axis, keep, how) in zip(got, CASES):
            want = ref(X, q, axis=tuple(axis) if isinstance(axis, list) else axis, keepdims=keep, method=how)
            np.testing.assert_allclose(np.asarray(out).reshape(np.shape(want)), want, rtol=1e-12)


def test_bad_arguments_are_paddles_errors():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        for q, axis, message in (
            (1.5, None, r"paddle\.quantile: q should be in range \[0, 1\], got 1\.5"),
            ([0.2, -0.3], None, r"paddle\.quantile: q should be in range \[0, 1\], got -0\.3"),
            ([], None, r"paddle\.quantile: q should not be empty"),
            (0.4, 0.4, r"paddle\.quantile: axis should be an int or a list of ints, got 0\.4"),
            (0.4, [1, 0.4], r"paddle\.quantile: axis should be an int or a list of ints, got 0\.4"),
            (0.4, 10, r"paddle\.quantile: axis should be in range \[-2, 2\), got 10"),
        ):
            with pytest.raises(ValueError, match=message):
                paddle.quantile(x, q, axis=axis)
        with pytest.raises(TypeError, match=r"paddle\.quantile: input x should be a Tensor, got list"):
            paddle.quantile([1, 3, 4], 0.9)
