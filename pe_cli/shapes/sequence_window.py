"""Meta rules of the sequence ops that look at a window of steps or scatter into rows (ops/sequence_window.py):
sequence_enumerate, sequence_scatter, row_conv and their gradients. Each reads the LoD of the call (``facts.lod``: a
structured step keeps its Meta per signature and LoD) and hands its out-kernel (kernels/cpu/sequence_window.py) the
offsets; sequence_scatter's Ids are values, checked by its out-kernel."""

import numpy as np

from ..base.errors import PeError
from .sequence import lod_offsets
from .structured import Meta


def row_conv_offsets(ctx, x_shape):
    """row_conv's sequences: X's LoD (last level), or for a padded batch [B, T, D] one of T per row."""
    if ctx.lod.get("X"):
        return lod_offsets(ctx.lod.get("X"), "X", x_shape[0])
    if len(x_shape) != 3:
        raise PeError(f"row_conv: X {list(x_shape)} has no LoD; give a sequence or a batch [B, T, D]")
    return np.arange(x_shape[0] + 1, dtype=np.int64) * x_shape[1]


def _spec(a):
    return (tuple(a.shape), np.dtype(a.dtype))


def enumerate_meta(attrs, ins, facts):
    """sequence_enumerate: Out [steps, win_size] of X's dtype; the loop's offsets of X's last LoD level."""
    x = ins["X"]
    offs = lod_offsets(facts.lod.get("X"), "X", x.shape[0])
    return Meta({"Out": ((x.shape[0], attrs["win_size"]), np.dtype(x.dtype))}, "loop", args=(offs,))


def _ids_offsets(ins, facts):
    return lod_offsets(facts.lod.get("Ids"), "Ids", int(np.prod(ins["Ids"].shape, dtype=np.int64)))


def scatter_meta(attrs, ins, facts):
    """sequence_scatter: Out of X's shape and dtype; the offsets of Ids' sequences (its values, the out-kernel's)."""
    return Meta({"Out": _spec(ins["X"])}, "loop", args=(_ids_offsets(ins, facts),))


def scatter_grad_meta(attrs, ins, facts):
    """sequence_scatter_grad: X@GRAD, Out@GRAD as it is (a copy); Updates@GRAD of Updates' shape in Out@GRAD's
    dtype, taken at Ids."""
    dout = ins["Out@GRAD"]
    outputs = {"X@GRAD": _spec(dout), "Updates@GRAD": (tuple(ins["Updates"].shape), np.dtype(dout.dtype))}
    return Meta(outputs, "loop", args=(_ids_offsets(ins, facts),))


def row_conv_meta(attrs, ins, facts):
    """row_conv: Out of X's shape and dtype; the loop's offsets (X's LoD, or one sequence per row of a batch)."""
    x = ins["X"]
    return Meta({"Out": _spec(x)}, "loop", args=(row_conv_offsets(facts, x.shape),))


def row_conv_grad_meta(attrs, ins, facts):
    """row_conv_grad: X@GRAD of X's shape and dtype, Filter@GRAD of Filter's."""
    x = ins["X"]
    outputs = {"X@GRAD": _spec(x), "Filter@GRAD": _spec(ins["Filter"])}
    return Meta(outputs, "loop", args=(row_conv_offsets(facts, x.shape),))
