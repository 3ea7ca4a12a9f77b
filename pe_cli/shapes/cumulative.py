"""Meta rules of the cumulative family (ops/cumulative.py: cumprod, cummax, cummin, logcumsumexp and their
gradients; structured kernels, shapes/structured.py; CPU out-kernels: kernels/cpu/cumulative.py): each output's
shape and dtype from the inputs' and the attributes, the variant "scan". Each scan is a numpy form that makes its
result as a new array (``fresh``: the out-kernel hands it over, no copy); a refusal (an axis out of range) is the
one line numpy's scan gave, as before."""

import numpy as np

from ..base.dtypes import convert_dtype
from .structured import Meta


def _like(slot, src):
    def meta(attrs, ins, facts):
        x = ins[src]
        return Meta({slot: (tuple(x.shape), x.dtype)}, "scan", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{slot.split('@')[0].lower()}_like_{src.lower()}_meta"
    return meta


def cumprod_meta(attrs, ins, facts):
    """cumprod: Out of X's shape and dtype, "accumulate": numpy's running product along ``dim`` straight into the
    buffer (a 0-D X as [1]; args the axis, taken modulo X's rank as the kernels always took it: the shape rule
    refuses one out of range when the op is appended)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "accumulate", args=(attrs["dim"] % max(len(x.shape), 1),))


cumprod_grad_meta = _like("X@GRAD", "X")  # X@GRAD: X's (the gradient is computed in X's dtype)


def cum_extreme_meta(attrs, ins, facts):
    """cummax / cummin: out of x's shape and dtype, indices of x's shape in ``dtype`` (int32 or int64)."""
    x = ins["x"]
    shape = tuple(x.shape)
    return Meta(
        {"out": (shape, x.dtype), "indices": (shape, np.dtype(convert_dtype(attrs["dtype"])))}, "scan", fresh=True
    )


def cum_extreme_grad_meta(attrs, ins, facts):
    """cummax_grad / cummin_grad: x@GRAD of x's shape, out@GRAD's dtype."""
    return Meta({"x@GRAD": (tuple(ins["x"].shape), ins["out@GRAD"].dtype)}, "scan", fresh=True)


def logcumsumexp_meta(attrs, ins, facts):
    """logcumsumexp: Out of X's shape (``flatten``: [X's size]) and dtype."""
    x = ins["X"]
    shape = (int(np.prod(x.shape, dtype=np.int64)),) if attrs["flatten"] else tuple(x.shape)
    return Meta({"Out": (shape, x.dtype)}, "scan", fresh=True)


logcumsumexp_grad_meta = _like("X@GRAD", "X")
