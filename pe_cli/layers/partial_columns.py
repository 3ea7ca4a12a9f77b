"""Fluid 1.8's ``contrib.layers`` partial_concat and partial_sum (ops/partial_columns.py)."""

from ..base.errors import ArgumentTypeError
from .helper import LayerHelper

__all__ = ["partial_concat", "partial_sum"]


def _append(op, input, start_index, length):
    inputs = list(input) if isinstance(input, (list, tuple)) else [input]
    if not all(isinstance(i, int) for i in (start_index, length)):
        raise ArgumentTypeError(f"{op}: start_index and length must be ints, got {start_index!r}, {length!r}")
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op(op, {"X": inputs}, {"Out": [out]}, {"start_index": start_index, "length": length})
    return out


def partial_concat(input, start_index=0, length=-1):
    """The columns [start_index, start_index + length) of each [batch, n] input, joined along the
    columns (start_index < 0 counts from the end; length -1: to the end)."""
    return _append("partial_concat", input, start_index, length)


def partial_sum(input, start_index=0, length=-1):
    """The sum of the inputs' column windows [start_index, start_index + length)."""
    return _append("partial_sum", input, start_index, length)
