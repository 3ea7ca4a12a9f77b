"""The meta rules of the gathers and scatters by index, structured kernels (shapes/structured.py): gather,
gather_nd, scatter, scatter_nd_add, index_select and their gradients, one_hot and one_hot_v2. From the
attributes and the shapes and dtypes of the inputs, each output's shape and dtype and the variant that computes
it (the CPU out-kernels: kernels/cpu/gathering.py), decided once per shape signature. The indices' values (in
range) are checked by the out-kernel, every run, with the same one line as ever (kernels/value_checks.py).

- gather (its axis moved first around it by the op's layout, kernels/layout.py): Out [len(Index)] + X's dims
  but the first, of X's dtype, "take"; gather_grad: X@GRAD of X's, "add_rows" (Out@GRAD's rows added into
  zeros at Index).
- gather_nd: Out Index's dims but the last + X's dims from Index.shape[-1] (or [1]), "take"; gather_nd_grad:
  X@GRAD of X's, "add_at".
- scatter: Out of X's, "overwrite" or "add" (the attribute); scatter_grad: X@GRAD of Out@GRAD's, Updates@GRAD
  [len(Ids)] + Out@GRAD's dims but the first, "rows".
- scatter_nd_add: Out of X's, "add_at"; scatter_nd_add_grad: X@GRAD of Out@GRAD's, Updates@GRAD Updates' shape
  of Out@GRAD's dtype, "rows".
- index_select: Out X's shape with dim ``dim`` len(Index), "take" (``args``: the dim); index_select_grad:
  X@GRAD of X's shape and Out@GRAD's dtype, "add_at".
- one_hot (X [..., 1]: refused otherwise, in one line) and one_hot_v2 (X of any shape S): Out [...] (S) +
  [depth] of the ``dtype`` attribute; "equal" (the ids compared with each class, cast into Out) up to
  ``ONE_HOT_PUT_DEPTH`` classes, "put" beyond (Out zeroed, a 1 put at each id in range); ``args``: whether X
  ends in its dim of 1 (one_hot's) rather than being the ids' shape (one_hot_v2's)."""

import math

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def gather_meta(attrs, ins, facts):
    """gather's Out and variant (above), along X's first dim."""
    x, index = ins["X"], ins["Index"]
    return Meta({"Out": ((math.prod(index.shape),) + tuple(x.shape[1:]), x.dtype)}, "take")


def gather_grad_meta(attrs, ins, facts):
    """gather_grad's X@GRAD and variant (above)."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "add_rows")


def gather_nd_meta(attrs, ins, facts):
    """gather_nd's Out and variant (above)."""
    x, index = ins["X"], ins["Index"]
    k = index.shape[-1]
    return Meta({"Out": (tuple(index.shape[:-1]) + tuple(x.shape[k:]) or (1,), x.dtype)}, "take")


def gather_nd_grad_meta(attrs, ins, facts):
    """gather_nd_grad's X@GRAD and variant (above)."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "add_at")


def scatter_meta(attrs, ins, facts):
    """scatter's Out and variant (above)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "overwrite" if attrs["overwrite"] else "add")


def scatter_grad_meta(attrs, ins, facts):
    """scatter_grad's X@GRAD, Updates@GRAD and variant (above)."""
    dout, ids = ins["Out@GRAD"], ins["Ids"]
    rows = (math.prod(np.shape(ids)),) + tuple(dout.shape[1:])
    return Meta({"X@GRAD": (tuple(dout.shape), dout.dtype), "Updates@GRAD": (rows, dout.dtype)}, "rows")


def scatter_nd_add_meta(attrs, ins, facts):
    """scatter_nd_add's Out and variant (above)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "add_at")


def scatter_nd_add_grad_meta(attrs, ins, facts):
    """scatter_nd_add_grad's X@GRAD, Updates@GRAD and variant (above)."""
    dout, updates = ins["Out@GRAD"], ins["Updates"]
    outputs = {"X@GRAD": (tuple(dout.shape), dout.dtype), "Updates@GRAD": (tuple(updates.shape), dout.dtype)}
    return Meta(outputs, "rows")


def index_select_meta(attrs, ins, facts):
    """index_select's Out and variant (above); ``args``: the dim, >= 0."""
    x, index = ins["X"], ins["Index"]
    dim = attrs["dim"] % len(x.shape)
    shape = tuple(x.shape[:dim]) + (math.prod(index.shape),) + tuple(x.shape[dim + 1 :])
    return Meta({"Out": (shape, x.dtype)}, "take", args=(dim,))


def index_select_grad_meta(attrs, ins, facts):
    """index_select_grad's X@GRAD and variant (above); ``args``: the dim, >= 0."""
    x, dout = ins["X"], ins["Out@GRAD"]
    dim = attrs["dim"] % len(x.shape)
    return Meta({"X@GRAD": (tuple(x.shape), dout.dtype)}, "add_at", args=(dim,))


ONE_HOT_PUT_DEPTH = 32  # classes from which one_hot zeroes Out and puts the 1s rather than compare every class


def _one_hot(shape, attrs, v1):
    variant = "put" if attrs["depth"] > ONE_HOT_PUT_DEPTH else "equal"
    return Meta({"Out": (tuple(shape) + (attrs["depth"],), np.dtype(attrs["dtype"]))}, variant, args=(v1,))


def one_hot_meta(attrs, ins, facts):
    """one_hot's Out and variant (above); X must end in a dim of 1 (Fluid builds one that ends in more, whose
    kernel then writes past Out)."""
    shape = tuple(ins["X"].shape)
    if shape[-1:] != (1,):
        raise PeError(f"one_hot: X {list(shape)} must end in a dim of size 1 (ids shaped [N, 1])")
    return _one_hot(shape[:-1], attrs, True)


def one_hot_v2_meta(attrs, ins, facts):
    """one_hot_v2's Out and variant (above)."""
    return _one_hot(np.shape(ins["X"]), attrs, False)
