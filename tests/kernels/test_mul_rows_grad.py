"""elementwise_mul's gradient where Y holds one value a row of X (an attention's weights over its values: the
"rows" variant, _reduce_loops.mul_rows_grad) against numpy's form of it (d * y, and numpy's sum of d * x along the
row, pairwise): the same bits on 1 thread and 2, rows of 1 to 2 pairwise blocks and longer; the shapes it leaves to
numpy."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import elementwise_binary_grad
from pe_cli.shapes import elementwise as rules

rng = np.random.default_rng(9)


def _numpy_grads(x, y, d, axis):
    """numpy's X@GRAD and Y@GRAD: Y placed by Fluid's axis rule, d * y, and d * x summed over Y's 1s."""
    ya = np.reshape(y, rules.aligned(x.shape, y.shape, axis))
    ya = ya.reshape((1,) * (x.ndim - ya.ndim) + ya.shape)
    summed = tuple(i for i, n in enumerate(ya.shape) if n == 1 and x.shape[i] != 1)
    return d * ya, (d * x).sum(axis=summed).reshape(y.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "xs, ys, axis",
    [
        ((64, 40, 256), (64, 40), 0),  # seq2seq's attention: two pairwise blocks a row
        ((64, 40, 1, 256), (64, 40), 0),
        ((10, 300), (10, 1), -1),
        ((7, 3, 1000), (7, 3, 1), -1),  # a longer row: blocks of blocks
        ((2, 5, 255), (2, 5), 0),  # halves that are not blocks
        ((33, 7), (33,), 0),  # one block of fewer than 8
    ],
)
def test_a_weight_a_row_gives_numpys_bits(xs, ys, axis, dtype, device_threads):
    x, y, d = (rng.standard_normal(s).astype(dtype) for s in (xs, ys, xs))
    x.flat[5] = np.nan
    ins = {"X": x, "Y": y, "Out@GRAD": d}
    assert rules.GRAD["mul"]({"axis": axis}, ins, None).variant == "rows"
    out = elementwise_binary_grad.elementwise_mul_grad(ins, {"axis": axis})
    dx, dy = _numpy_grads(x, y, d, axis)
    assert out["X@GRAD"].dtype == out["Y@GRAD"].dtype == dtype
    assert out["X@GRAD"].tobytes() == dx.tobytes() and out["Y@GRAD"].tobytes() == dy.tobytes()


@pytest.mark.parametrize(
    "xs, ys, axis, variant",
    [
        ((5, 9000), (5,), 0, "numpy"),  # a row longer than numpy sums in one pass
        ((64, 40, 16, 16), (64, 40), 0, "numpy"),  # summed over two dims
        ((64, 40, 16), (40, 16), 1, "middle"),  # a value a column (_broadcast_loops.middle_grad)
        ((64, 40), (64, 40), -1, "middle"),  # the same shape
    ],
)
def test_other_products_give_numpys_bits(xs, ys, axis, variant):
    x, y, d = (rng.standard_normal(s).astype(np.float32) for s in (xs, ys, xs))
    ins = {"X": x, "Y": y, "Out@GRAD": d}
    assert rules.GRAD["mul"]({"axis": axis}, ins, None).variant == variant
    out = elementwise_binary_grad.elementwise_mul_grad(ins, {"axis": axis})
    dx, dy = _numpy_grads(x, y, d, axis)
    assert out["X@GRAD"].tobytes() == dx.tobytes() and out["Y@GRAD"].tobytes() == dy.tobytes()
