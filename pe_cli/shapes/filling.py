"""The filling family's meta rules (ops/filling.py, Paddle 2.x's creation ops; structured kernels, their CPU
out-kernels in kernels/cpu/filling.py): the shapes and dtypes of fill_any, fill_any_grad, empty, full_int_array,
tril_indices and triu_indices. ``dtype`` attributes are Paddle's VarType codes."""

import numpy as np

from ..base.dtypes import convert_dtype
from .structured import Meta


def triangle_count(rows, cols, offset, upper):
    """How many (row, col) of a rows x cols matrix lie on or below (above: ``upper``) diagonal ``offset``."""
    return sum(
        max(0, min(cols, r + offset + 1)) if not upper else max(0, cols - max(0, r + offset)) for r in range(rows)
    )


def like_meta(attrs, ins, facts):
    """fill_any's Out (fill_any_grad's X@GRAD: zeros): its input's shape and dtype."""
    slot, out = ("X", "Out") if "X" in ins else ("Out@GRAD", "X@GRAD")
    x = ins[slot]
    return Meta({out: (tuple(x.shape), x.dtype)}, "fill")


def empty_meta(attrs, ins, facts):
    """empty's Out: the shape attribute's (ShapeTensor's or ShapeTensorList's values where given: the op's
    ``attr_tensors`` replace the attribute before the rule runs), of the dtype attribute's; pe's values: zeros."""
    return Meta({"Out": (tuple(int(d) for d in attrs["shape"]), np.dtype(convert_dtype(attrs["dtype"])))}, "fill")


def full_int_array_meta(attrs, ins, facts):
    """full_int_array's out: [len(value)] of the dtype attribute's."""
    return Meta({"out": ((len(attrs["value"]),), np.dtype(convert_dtype(attrs["dtype"])))}, "fill")


def indices_meta(rows, cols, upper):
    """The meta rule of tril_indices (triu_indices: ``upper``), whose sizes are the attributes ``rows`` and
    ``cols``: out [2, the triangle's count] of the dtype attribute's; ``args``: the sizes and offset."""

    def meta(attrs, ins, facts):
        r, c, offset = attrs[rows], attrs[cols], attrs["offset"]
        shape = (2, triangle_count(r, c, offset, upper))
        return Meta(
            {"out": (shape, np.dtype(convert_dtype(attrs["dtype"])))},
            "upper" if upper else "lower",
            args=(r, c, offset),
        )

    meta.__name__ = meta.__qualname__ = f"{'triu' if upper else 'tril'}_indices_meta"
    return meta


TRIL_INDICES = indices_meta("rows", "cols", False)
TRIU_INDICES = indices_meta("row", "col", True)


def logspace_meta(attrs, ins, facts):
    """logspace's Out: 1-D, Num's value long (known when the out-kernel runs: a fresh variant, the array numpy
    makes), of the dtype attribute's."""
    return Meta({"Out": ((-1,), np.dtype(convert_dtype(attrs["dtype"])))}, "logspace", fresh=True)
