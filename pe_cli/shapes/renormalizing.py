"""The meta rules of renorm and renorm_grad (ops/renormalizing.py): Out and X@GRAD of X's shape and dtype, "numpy"
(a ``fresh`` variant: the array the numpy form in kernels/<device>/renormalizing.py made, handed over)."""

import numpy as np

from .structured import Meta


def renorm_meta(attrs, ins, facts):
    """renorm's Out: X's shape and dtype."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)


def renorm_grad_meta(attrs, ins, facts):
    """renorm_grad's X@GRAD: X's shape and dtype."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)
