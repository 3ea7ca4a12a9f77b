"""The meta rules of renorm and renorm_grad (ops/renormalizing.py): Out and X@GRAD of X's shape and dtype, "numpy"
(a ``fresh`` variant: the array the numpy form in kernels/<device>/renormalizing.py made, handed over)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def _check_axis(attrs, shape):
    """Refuses an axis X lacks (Paddle 2.6.2's paddle.renorm refuses it; its kernel reads past X's dims)."""
    if not -len(shape) <= attrs["axis"] < len(shape):
        raise PeError(f"renorm: axis={attrs['axis']} is no axis of X {list(shape)}")


def renorm_meta(attrs, ins, facts):
    """renorm's Out: X's shape and dtype (an axis X lacks refused)."""
    x = ins["X"]
    _check_axis(attrs, tuple(x.shape))
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)


def renorm_grad_meta(attrs, ins, facts):
    """renorm_grad's X@GRAD: X's shape and dtype (an axis X lacks refused)."""
    x = ins["X"]
    _check_axis(attrs, tuple(x.shape))
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)
