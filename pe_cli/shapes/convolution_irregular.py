"""Meta rules of the convolutions that are no regular conv2d or conv3d (structured kernels, shapes/structured.py):
conv_shift's circular convolution of rows, deformable_conv(_v1)'s taps at learned offsets (ops/convolution.py),
tree_conv's over trees (ops/tree_conv.py) and sequence_conv's over each sequence's steps (ops/sequence_conv.py), and
their gradients. Their out-kernels are in kernels/cpu/convolution.py, tree_conv.py and sequence_conv.py; the
gradients write only the outputs the op has (``facts.wanted``).

- conv_shift: the column maps each output reads (``args``), made once per shape signature; an output whose
  einsum's dtype is its own is summed straight into its buffer ("einsum"), else cast into it ("cast").
- deformable_conv: one variant, "numpy", a ``fresh`` one: the deformable im2col's numpy form makes its arrays.
- tree_conv: "trees", into the buffers handed: the trees' patches follow EdgeSet's values (read by the out-kernel).
- sequence_conv: the context map of the call's LoD (``args``); its gradient scatters the context's gradient
  straight into X@GRAD ("rows"), or with PaddingData's rows trainable into a scratch of both ("padded")."""

import numpy as np

from .sequence import lod_offsets
from .structured import Meta


def _spec(a, dtype=None):
    return (tuple(a.shape), np.dtype(a.dtype if dtype is None else dtype))


# -- conv_shift --------------------------------------------------------------------------------------------


def _sums(dtypes, into):
    """ "einsum" where the einsum of arrays of ``dtypes`` is of dtype ``into`` (summed into the buffer), else "cast"."""
    return "einsum" if np.result_type(*dtypes) == np.dtype(into) else "cast"


def conv_shift_meta(attrs, ins, facts):
    """conv_shift: Out of X's shape and dtype; the column of X each (output column i, tap j) reads ([M, N])."""
    x, y = ins["X"], ins["Y"]
    m, n = x.shape[1], y.shape[1]
    forward = (np.arange(m)[:, None] + np.arange(n)[None, :] - (n - 1) // 2) % m
    return Meta({"Out": _spec(x)}, _sums((x.dtype, y.dtype), x.dtype), args=(forward,))


def conv_shift_grad_meta(attrs, ins, facts):
    """conv_shift_grad: X@GRAD of X's shape and dtype, Y@GRAD of Y's (those the op has); the maps forward (as the
    forward's) and back (X's column c is read by output column (c - j + h) mod M at tap j); each output's variant
    (``args[2]``: slot -> "einsum" or "cast")."""
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    m, n = x.shape[1], y.shape[1]
    forward = (np.arange(m)[:, None] + np.arange(n)[None, :] - (n - 1) // 2) % m
    back = (np.arange(m)[:, None] - np.arange(n)[None, :] + (n - 1) // 2) % m
    wanted = facts.wanted(("X@GRAD", "Y@GRAD"))
    outputs = {s: _spec(ins[s[:1]]) for s in ("X@GRAD", "Y@GRAD") if s in wanted}
    sums = {
        "X@GRAD": _sums((dout.dtype, y.dtype), x.dtype),
        "Y@GRAD": _sums((x.dtype, dout.dtype), y.dtype),
    }
    return Meta(outputs, "grads", args=(forward, back, sums))


# -- deformable_conv, deformable_conv_v1 ---------------------------------------------------------------------


def deformable_meta(attrs, ins, facts):
    """deformable_conv(_v1): Output [N, M, Ho, Wo] of Input's dtype (Ho, Wo: Offset's, which the op's run-time
    check holds to the convolution's sizes)."""
    x, w, off = ins["Input"], ins["Filter"], ins["Offset"]
    shape = (x.shape[0], w.shape[0], off.shape[2], off.shape[3])
    return Meta({"Output": (shape, np.dtype(x.dtype))}, "numpy", fresh=True)


def deformable_grad_meta(attrs, ins, facts):
    """deformable_conv(_v1)_grad: each input's gradient the op has, of that input's shape; Input's and Mask's of
    Input's dtype, Filter's of Filter's and Offset's of Offset's."""
    slots = [s for s in ("Input", "Offset", "Mask", "Filter") if ins.get(s) is not None]
    wanted = facts.wanted(tuple(s + "@GRAD" for s in slots))
    x = ins["Input"]
    dtypes = {"Input": x.dtype, "Mask": x.dtype}
    outputs = {s + "@GRAD": _spec(ins[s], dtypes.get(s)) for s in slots if s + "@GRAD" in wanted}
    return Meta(outputs, "numpy", fresh=True)


# -- tree_conv -----------------------------------------------------------------------------------------------


def tree_conv_meta(attrs, ins, facts):
    """tree_conv: Out [batch, max_nodes, output_size, num_filters] of NodesVector's dtype."""
    x, filt = ins["NodesVector"], ins["Filter"]
    shape = tuple(x.shape[:2]) + tuple(filt.shape[2:])
    return Meta({"Out": (shape, np.dtype(x.dtype))}, "trees")


def tree_conv_grad_meta(attrs, ins, facts):
    """tree_conv_grad: NodesVector@GRAD of NodesVector's shape and dtype, Filter@GRAD of Filter's (those the op
    has)."""
    wanted = facts.wanted(("NodesVector@GRAD", "Filter@GRAD"))
    outputs = {s + "@GRAD": _spec(ins[s]) for s in ("NodesVector", "Filter") if s + "@GRAD" in wanted}
    return Meta(outputs, "trees")


# -- sequence_conv -------------------------------------------------------------------------------------------


def context_index(offs, start, length, trainable=False):
    """sequence_conv's context: for each row and window position k, the row start + k steps
    away within the same sequence, or -1 (zero padding) outside it. [rows * length]. With
    ``trainable`` (paddingTrainable) a step outside is a row of PaddingData instead, placed after X's
    rows: PaddingData row up + d for a step d rows before the sequence's start (d < 0) or d rows past
    its end (d >= 0), up = max(0, -start) its rows for the steps before, as Fluid's."""
    offs = np.asarray(offs, dtype=np.int64)
    rows = int(offs[-1])
    seq = np.repeat(np.arange(len(offs) - 1), np.diff(offs))
    src = np.arange(rows)[:, None] + start + np.arange(length)[None, :]
    lo, hi = offs[seq][:, None], offs[seq + 1][:, None]
    outside = -1
    if trainable:
        outside = rows + max(0, -start) + np.where(src < lo, src - lo, src - hi)
    return np.where((src >= lo) & (src < hi), src, outside).reshape(-1).astype(np.int64)


def _context(attrs, ins, facts):
    """(the context map of X's LoD, PaddingData's rows trainable?)."""
    x, padding = ins["X"], ins.get("PaddingData")
    trainable = bool(attrs["paddingTrainable"]) and padding is not None
    offs = lod_offsets(facts.lod.get("X"), "X", x.shape[0])
    return context_index(offs, attrs["contextStart"], attrs["contextLength"], trainable), trainable


def sequence_conv_meta(attrs, ins, facts):
    """sequence_conv: Out [rows, num_filters] of the product's dtype (X's and Filter's); the context map."""
    x, w = ins["X"], ins["Filter"]
    idx, trainable = _context(attrs, ins, facts)
    shape = (x.shape[0], w.shape[1])
    return Meta({"Out": (shape, np.result_type(x.dtype, w.dtype))}, "gemm", args=(idx, trainable))


def sequence_conv_grad_meta(attrs, ins, facts):
    """sequence_conv_grad: X@GRAD of X's shape and dtype, Filter@GRAD of Filter's shape in the product's dtype (X's
    and Out@GRAD's), PaddingData@GRAD of PaddingData's shape (X's dtype where its rows are trainable, else its own:
    zeros); "padded" (the scatter into a scratch of X's and PaddingData's rows) where PaddingData has trainable rows,
    else "rows"; ``args``: the context map, whether trainable, where the map's valid entries are, all of them?"""
    x, w, dout, padding = ins["X"], ins["Filter"], ins["Out@GRAD"], ins.get("PaddingData")
    idx, trainable = _context(attrs, ins, facts)
    slots = ("X@GRAD", "Filter@GRAD") + (("PaddingData@GRAD",) if padding is not None else ())
    wanted = facts.wanted(slots)
    padded = trainable and len(padding) > 0
    specs = {
        "X@GRAD": _spec(x),
        "Filter@GRAD": (tuple(w.shape), np.result_type(x.dtype, dout.dtype)),
        "PaddingData@GRAD": None if padding is None else _spec(padding, x.dtype if padded else None),
    }
    outputs = {s: specs[s] for s in slots if s in wanted}
    valid = idx >= 0
    scratch = {}
    if padded:
        width = int(np.prod(x.shape[1:], dtype=np.int64))
        scratch = {"@rows": ((x.shape[0] + len(padding), width), np.dtype(x.dtype))}
    return Meta(
        outputs, "padded" if padded else "rows", scratch=scratch, args=(idx, trainable, valid, bool(valid.all()))
    )
