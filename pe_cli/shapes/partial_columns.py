"""The meta rules (shapes/structured.py) of partial_concat, partial_sum and their gradients (ops/partial_columns.py;
out-kernels: kernels/cpu/partial_columns.py). Every input [batch, n] of one shape (refused otherwise, as the kernels
refused it), the window (start, stop) of their columns decided once (``Meta.args``), the "columns" variant writing
into the buffers it is handed: partial_concat's Out [batch, inputs * length] in the inputs' promoted dtype (numpy's
concatenate), partial_sum's Out [batch, length] in the first input's dtype, each X@GRAD of its input's shape and
dtype (zeros outside the window)."""

import numpy as np

from ..base.errors import PeError
from .manipulation import column_window
from .structured import Meta


def column_range(xs, attrs):
    """(start, stop) of the window in the inputs' columns; the inputs must be [batch, n] alike."""
    shapes = [tuple(x.shape) for x in xs]
    if len(set(shapes)) != 1 or len(shapes[0]) != 2:
        raise PeError(f"partial_concat/partial_sum: every input must be [batch, n] of one shape, got {shapes}")
    try:
        return column_window(shapes[0][1], attrs["start_index"], attrs["length"])
    except ValueError as e:
        raise PeError(f"partial_concat/partial_sum: {e}") from None


def partial_concat_meta(attrs, ins, facts):
    xs = ins["X"]
    start, stop = column_range(xs, attrs)
    dtype = np.result_type(*(np.dtype(x.dtype) for x in xs))
    return Meta({"Out": ((xs[0].shape[0], len(xs) * (stop - start)), dtype)}, "columns", args=(start, stop))


def partial_sum_meta(attrs, ins, facts):
    xs = ins["X"]
    start, stop = column_range(xs, attrs)
    return Meta({"Out": ((xs[0].shape[0], stop - start), np.dtype(xs[0].dtype))}, "columns", args=(start, stop))


def partial_grad_meta(attrs, ins, facts):
    """partial_concat_grad's and partial_sum_grad's."""
    xs = ins["X"]
    start, stop = column_range(xs, attrs)
    return Meta({"X@GRAD": [(tuple(x.shape), np.dtype(x.dtype)) for x in xs]}, "columns", args=(start, stop))
