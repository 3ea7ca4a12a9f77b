"""Paddle 2.x's order statistics and counts (``paddle.kthvalue``, ``mode``, ``nanmedian``,
``bincount``) with 2.6.2's signatures, each the op of the statistics family of that name
(ops/statistics.py)."""

from ..layers.checks import check_type, check_variable_and_dtype
from ..base.errors import FluidUnsupported
from ..layers.helper import LayerHelper
from ..framework.variable import Variable
from ..framework.program_release import paddle_face

__all__ = ["kthvalue", "mode", "nanmedian", "bincount"]


@paddle_face
def _valued(op_type, x, attrs, name):
    helper = LayerHelper(op_type, x=x, name=name)
    values = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(op_type, {"X": [x]}, {"Out": [values], "Indices": [indices]}, attrs)
    return values, indices


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """(the k-th smallest value along ``axis`` (None: the last), its index); NaN sorts last. The axis is
    dropped whatever ``keepdim`` says: Paddle 2.6.2's static kthvalue does not pass keepdim to its op."""
    check_type(x, "x", Variable, "kthvalue")
    return _valued("kthvalue", x, {"k": int(k), "axis": -1 if axis is None else int(axis)}, name)


def mode(x, axis=-1, keepdim=False, name=None):
    """(the most frequent value along ``axis``, the smallest of equally frequent ones; the index of its
    last occurrence)."""
    check_type(x, "x", Variable, "mode")
    return _valued("mode", x, {"axis": int(axis), "keepdim": bool(keepdim)}, name)


@paddle_face
def nanmedian(x, axis=None, keepdim=False, name=None):
    """The median of the values that are not NaN over ``axis`` (an int, a list of ints, None: all);
    NaN where all are NaN, the mean of the two middle values for an even count."""
    if not isinstance(x, Variable):
        raise TypeError("In median, the input x should be a Tensor.")
    if isinstance(axis, (list, tuple)) and len(axis) == 0:
        raise ValueError("Axis list should not be empty.")
    axes = [] if axis is None else [int(axis)] if isinstance(axis, int) else [int(a) for a in axis]
    check_variable_and_dtype(x, "X", ("int32", "int64", "float16", "float32", "float64"), "nanmedian")
    helper = LayerHelper("nanmedian", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    places = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "nanmedian", {"X": [x]}, {"Out": [out], "MedianIndex": [places]}, {"axis": axes, "keepdim": bool(keepdim)}
    )
    return out


def bincount(x, weights=None, minlength=0, name=None):
    """How often each value of the 1-D int tensor x occurs (int64), or the sum of its ``weights``;
    max(x) + 1 or ``minlength`` entries, whichever is more."""
    if not isinstance(x, Variable) or x.dtype not in ("int32", "int64"):
        raise TypeError("Elements in Input(x) should all be integers")
    if weights is not None:
        check_variable_and_dtype(weights, "Weights", ("int32", "int64", "float32", "float64"), "bincount")
    if isinstance(minlength, Variable):  # (Paddle 2.6 reads it when the program runs: a Variable attribute)
        raise FluidUnsupported("paddle.bincount(minlength=Tensor)", "pe takes minlength as an int")
    helper = LayerHelper("bincount", x=x, name=name)
    dtype = "int64" if weights is None else ("float32" if weights.dtype == "float32" else "float64")
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(
        "bincount",
        {"X": [x], **({"Weights": [weights]} if weights is not None else {})},
        {"Out": [out]},
        {"minlength": int(minlength)},
    )
    return out
