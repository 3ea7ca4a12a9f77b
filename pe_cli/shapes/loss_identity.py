"""The meta rules (shapes/structured.py) of identity_loss and its gradient (ops/loss_identity.py; out-kernels:
kernels/cpu/loss_identity.py). reduction 2 (none): Out is X and X@GRAD is Out@GRAD, as they are
(``Meta.aliases``, the "through" variant); 0 (sum) and 1 (mean): Out a 0-D value in X's dtype, numpy's sum or mean
(the "numpy" variant, fresh), and X@GRAD of X's shape in Out@GRAD's dtype, filled with Out@GRAD (divided by X's size
for the mean: "fill")."""

import numpy as np

from .structured import Meta


def identity_loss_meta(attrs, ins, facts):
    x = ins["X"]
    if attrs["reduction"] == 2:
        return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "through", aliases={"Out": "X"})
    return Meta({"Out": ((), np.dtype(x.dtype))}, "numpy", fresh=True)


def identity_loss_grad_meta(attrs, ins, facts):
    x, d = ins["X"], ins["Out@GRAD"]
    if attrs["reduction"] == 2:
        return Meta({"X@GRAD": (tuple(d.shape), np.dtype(d.dtype))}, "through", aliases={"X@GRAD": "Out@GRAD"})
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(d.dtype))}, "fill")
