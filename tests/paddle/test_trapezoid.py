"""paddle.trapezoid and paddle.cumulative_trapezoid (pe_cli/paddle/tensor_arrange.py): the trapezoid
rule along an axis, at sample points x (1-D or y's shape) or spacing dx (a number or a 0-D Tensor),
against numpy's (trapezoid in numpy 2, trapz in numpy 1)."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import ArgumentTypeError
from tests.paddle.test_tensor import run

trapz = getattr(np, "trapezoid", None) or np.trapz
R = np.random.RandomState(3)
Y = R.uniform(-1, 1, (3, 4, 5))
X1 = np.sort(R.uniform(0, 3, 4))
XF = np.sort(R.uniform(0, 3, (3, 4, 5)), axis=-1)
DX = np.array(0.25)


def _cumulative(y, x=None, dx=1.0, axis=-1):
    y = np.moveaxis(y, axis, -1)
    steps = np.diff(np.moveaxis(x, axis, -1) if x is not None and x.ndim > 1 else x) if x is not None else dx
    return np.moveaxis(np.cumsum((y[..., 1:] + y[..., :-1]) * steps / 2, axis=-1), -1, axis)


def test_trapezoid_and_cumulative_trapezoid_equal_numpys():
    got = run(
        lambda y, x1, xf, dx: [
            paddle.trapezoid(y),
            paddle.trapezoid(y, x=x1, axis=1),
            paddle.trapezoid(y, x=xf),
            paddle.trapezoid(y, dx=dx, axis=0),
            paddle.trapezoid(y, dx=3),
            paddle.cumulative_trapezoid(y, x=xf),
        ],
        Y,
        X1,
        XF,
        DX,
    )
    want = [
        trapz(Y),
        trapz(Y, x=X1, axis=1),
        trapz(Y, x=XF),
        trapz(Y, dx=0.25, axis=0),
        trapz(Y, dx=3),
        _cumulative(Y, x=XF),
    ]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_trapezoid_refuses_what_paddle_does():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        y = paddle.static.data("y", [4, 4], "float32")
        with pytest.raises(
            ArgumentTypeError, match="trapezoid: y 'yi' is int64; it must be one of float16, float32, float64"
        ):
            paddle.trapezoid(paddle.static.data("yi", [4, 4], "int64"))
        with pytest.raises(ValueError, match="both x and dx"):
            paddle.trapezoid(y, y, 1.0)
        with pytest.raises(ValueError, match="dx to be a scalar"):
            paddle.trapezoid(y, dx=paddle.static.data("dx", [4, 4], "float32"))
