"""elementwise add, sub and mul of a large X and a Y broadcast along its leading or trailing dims
(_broadcast_loops.py, the form the meta rule's rows_form finds): numpy's bits, NaN, infinities and -0.0
included, from the serial loop, its parallel twin and the kernels on a device of 1 or 2 threads."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import _broadcast_loops as loops
from pe_cli.kernels.cpu import elementwise
from pe_cli.shapes.elementwise import rows_form

rng = np.random.default_rng(11)
pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf - inf, 0 * inf
NUMPY = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply}


def _values(shape, dtype):
    v = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = v.reshape(-1)
    flat[::17] = -0.0
    flat[5::41] = np.inf
    flat[7::43] = -np.inf
    flat[3::47] = np.nan
    return v


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(NUMPY))
@pytest.mark.parametrize("mode, y_shape", [(loops.SAME, (37, 53)), (loops.PER_ROW, (37, 1)), (loops.PER_COL, (1, 53))])
@pytest.mark.parametrize("parts", [None, 1, 3])
def test_the_loops_give_numpys_bits(dtype, op, mode, y_shape, parts):
    x, y = _values((37, 53), dtype), _values(y_shape, dtype)
    out = np.empty_like(x)
    if parts is None:
        loops.binary(x, y, out, getattr(loops, op), mode)
    else:
        loops.binary_parallel(x, y, out, getattr(loops, op), mode, parts)
    np.testing.assert_array_equal(out, NUMPY[op](x, y))
    assert np.array_equal(np.signbit(out), np.signbit(NUMPY[op](x, y)))


@pytest.mark.parametrize(
    "kernel, ufunc",
    [
        (elementwise.elementwise_add, np.add),
        (elementwise.elementwise_sub, np.subtract),
        (elementwise.elementwise_mul, np.multiply),
    ],
)
@pytest.mark.parametrize(
    "x_shape, y_shape, axis",
    [
        ((16, 4, 300), (16, 4), 0),  # the beam's scores: one value a row
        ((16, 4, 300), (16, 4, 1), -1),  # ... kept 3-D
        ((16, 4, 300), (300,), -1),  # the end-token mask: one row for all
        ((16, 4, 300), (4, 300), 1),
        ((16, 4, 300), (16, 4, 300), -1),  # the same shape
        ((16, 4, 300), (4,), 1),  # along a middle dim: numpy's broadcast
        ((4, 300), (16, 4, 300), -1),  # X the smaller: numpy's broadcast
    ],
)
def test_the_kernels_give_numpys_bits(device_threads, kernel, ufunc, x_shape, y_shape, axis):
    x, y = _values(x_shape, np.float32), _values(y_shape, np.float32)
    out = kernel({"X": x, "Y": y}, {"axis": axis})["Out"]
    want = ufunc(*elementwise.align_both(x, y, axis))
    assert out.shape == want.shape and out.dtype == np.float32
    np.testing.assert_array_equal(out, want)


def test_rows_form_finds_ys_place():
    """The meta rule's rows form (pe_cli/shapes/elementwise.py) of Y in X [6, 4, 5]: one value a row, one row for
    all, the same shape; None along a middle dim."""
    x = (6, 4, 5)
    assert rows_form(x, (6, 4), 0) == ("PER_ROW", (24, 5), (24, 1))
    assert rows_form(x, (6, 1, 1), -1) == ("PER_ROW", (6, 20), (6, 1))
    assert rows_form(x, (4, 5), -1) == ("PER_COL", (6, 20), (1, 20))
    assert rows_form(x, (1, 4, 5), -1) == ("PER_COL", (6, 20), (1, 20))
    assert rows_form(x, (6, 4, 5), -1) == ("SAME", (24, 5), (24, 5))
    assert rows_form(x, (4,), 1) is None  # a middle dim
    assert rows_form(x, (6, 1, 5), -1) is None  # broadcast in the middle
