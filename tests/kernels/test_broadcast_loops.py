"""elementwise add, sub, mul and div of an X and a Y that the axis rule places as X's leading dims, 1s, then X's
trailing dims (_broadcast_loops.py, the form the meta rule's middle_form finds: Y of X's shape, one value a row,
one row for all, an attention's mask), and their gradients: numpy's bits, NaN, infinities and -0.0 included, from
the serial loop, its parallel twin and the kernels on a device of 1 or 2 threads."""

import numpy as np
import pytest

from pe_cli.kernels.cpu import _broadcast_loops as loops
from pe_cli.kernels.cpu import elementwise, elementwise_binary_grad
from pe_cli.shapes.elementwise import GRAD as GRAD_META, middle_form
from pe_cli.shapes.structured import Meta

rng = np.random.default_rng(11)
# inf - inf, 0 * inf, x / 0
pytestmark = pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning", "ignore:divide by zero:RuntimeWarning")
NUMPY = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide}


def _values(shape, dtype):
    v = (rng.standard_normal(shape) * 3).astype(dtype)
    flat = v.reshape(-1)
    flat[::17] = -0.0
    flat[2::19] = 0.0
    flat[5::41] = np.inf
    flat[7::43] = -np.inf
    flat[3::47] = np.nan
    return v


FORMS = [(37, 1, 53), (37, 53, 1), (1, 37, 53), (5, 7, 11), (3, 1, 1)]  # X as [a, b, c]: Y [a, c]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(NUMPY))
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("parts", [None, 1, 3])
def test_the_loops_give_numpys_bits(dtype, op, form, parts):
    a, b, c = form
    x, y = _values(form, dtype), _values((a, c), dtype)
    out = np.empty_like(x)
    if parts is None:
        loops.middle(x, y, out, getattr(loops, op))
    else:
        loops.middle_parallel(x, y, out, getattr(loops, op), parts)
    want = NUMPY[op](x, y.reshape(a, 1, c))
    np.testing.assert_array_equal(out, want)
    assert np.array_equal(np.signbit(out), np.signbit(want))


@pytest.mark.parametrize(
    "kernel, ufunc",
    [
        (elementwise.elementwise_add, np.add),
        (elementwise.elementwise_sub, np.subtract),
        (elementwise.elementwise_mul, np.multiply),
        (elementwise.elementwise_div, np.divide),
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
        ((8, 2, 16, 16), (8, 1, 1, 16), -1),  # an attention's mask over its scores
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
    assert np.array_equal(np.signbit(out), np.signbit(want))


class _Facts:
    paddle2, lod = False, {}

    def __init__(self, wanted):
        self.outputs = wanted

    def wanted(self, default):
        return self.outputs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
@pytest.mark.parametrize(
    "x_shape, y_shape, axis",
    [
        ((8, 2, 16, 16), (8, 1, 1, 16), -1),  # an attention's mask
        ((6, 5, 4), (5, 4), -1),  # one row for all, summed over 6
        ((6, 5, 4), (6, 5, 4), -1),  # the same shape: nothing summed
        ((300, 3), (3,), -1),  # a long sum
    ],
)
@pytest.mark.parametrize("wanted", [("X@GRAD", "Y@GRAD"), ("Y@GRAD",), ("X@GRAD",)])
def test_the_gradients_give_numpys_bits(dtype, op, x_shape, y_shape, axis, wanted):
    """The "middle" gradients (Y@GRAD summed over what Y was broadcast along, in numpy's order from 0.0: -0.0 sums
    to 0.0) against the "numpy" variant's, for the gradients the op has: the same bits, NaN where it has NaN."""
    x, y, d = _values(x_shape, dtype), _values(y_shape, dtype), _values(x_shape, dtype)
    ins = {"X": x, "Y": y, "Out@GRAD": d}
    if op == "div":
        ins["Out"] = np.divide(*elementwise.align_both(x, y, axis)).astype(dtype)
    attrs = {"axis": axis}
    meta = GRAD_META[op](attrs, ins, _Facts(set(wanted)))
    if op == "add" and meta.variant == "mid":  # (a bias's: sum_outer, test_structured_elementwise.py)
        assert len(y_shape) < len(x_shape) and len(wanted) == 2
        return
    if meta.variant != "middle":  # (add's gradients of an input of Out's shape, sub's X@GRAD: Out@GRAD itself)
        assert op in ("add", "sub") and set(meta.aliases) == set(wanted) and meta.variant == "numpy"
        assert op == "add" and x_shape == y_shape or wanted == ("X@GRAD",)
        return
    out_kernel = elementwise_binary_grad.GRAD[op]
    got = {s: np.empty(*spec) for s, spec in meta.outputs.items() if s not in meta.aliases}
    out_kernel(ins, got, attrs, meta)
    numpy = Meta(meta.outputs, "numpy", fresh=True, aliases=meta.aliases)
    want = {}
    out_kernel(ins, want, attrs, numpy)
    assert got.keys() == want.keys() == set(wanted) - set(meta.aliases)
    for slot in got:
        g, w = got[slot], np.asarray(want[slot])
        nan = np.isnan(w)  # (where two NaNs meet, which one's sign a sum keeps is the compiler's: IEEE leaves it open)
        assert np.array_equal(np.isnan(g), nan), slot
        assert g[~nan].tobytes() == w[~nan].tobytes(), slot


def test_middle_form_finds_ys_place():
    """The meta rule's form (pe_cli/shapes/elementwise.py) of Y in X [6, 4, 5]: X as [a, b, c], Y as [a, c]."""
    x = (6, 4, 5)
    assert middle_form(x, (6, 4), 0) == (24, 5, 1)  # one value a row
    assert middle_form(x, (6, 1, 1), -1) == (6, 20, 1)
    assert middle_form(x, (4, 5), -1) == (1, 6, 20)  # one row for all
    assert middle_form(x, (1, 4, 5), -1) == (1, 6, 20)
    assert middle_form(x, (6, 4, 5), -1) == (24, 1, 5)  # the same shape
    assert middle_form(x, (6, 1, 5), -1) == (6, 4, 5)  # broadcast in the middle
    assert middle_form((8, 2, 16, 16), (8, 1, 1, 16), -1) == (8, 32, 16)  # an attention's mask
    assert middle_form(x, (4,), 1) is None  # a middle dim of X between 1s
    assert middle_form((4, 5), x, -1) is None  # Y of more dims
