"""The reshaping ops' meta rules (structured kernels, shapes/structured.py): reshape, flatten, squeeze,
unsqueeze, flatten_contiguous_range and their ``*2`` twins, whose Out is X in another shape (``Meta.views``:
X's memory where X is C-contiguous, no copy, else a C-contiguous copy of it; XShape X's shape behind a 0,
holding nothing), their grad ops (Out@GRAD in X's shape), and transpose and its grad op (X's dims permuted:
a view where the permutation moves no dim of more than one element past another, numba's loops where it
swaps two adjacent runs of dims of a large float X, else numpy's copy into Out).

Each reads X's shape and dtype and the op's attributes (reshape's Shape and ShapeTensor, unsqueeze's
AxesTensor: their values replace the attribute before the rule runs, the ops' ``attr_tensors``), never X's
values; a refusal is the one line the kernels always gave."""

import math

import numpy as np

from ..base.broadcast_shapes import flattened_shape
from .manipulation import inverse_axis
from .manipulation_run import reshape_shape, squeeze_axes, unsqueeze_shape
from .structured import Meta

# elements below which numpy's copy of the transposed view is as fast as the loop; from here the parallel twin
# is faster than the loop too (2-core AMD EPYC VM, p10 of 400 calls, [n, 28, 4, 16] float32: 14,336 values
# 7.6 -> 5.0 us, 114,688 values 58 -> 18 us)
SWAP_LOOP_MIN = 1 << 14
SWAP_LOOP_ROW = 4  # swap_middle copies rows of the trailing axes of at least this many elements; swap_tiles shorter
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _viewed(x, shape, src="X", slot="Out"):
    """``slot`` is ``src`` in ``shape`` (a view where it is C-contiguous); XShape X's shape behind a 0."""
    shape = tuple(int(d) for d in shape)
    return Meta({slot: (shape, x.dtype), "XShape": ((0, *x.shape), x.dtype)}, "view", views={slot: src})


def _shape(x):
    """X's shape as numpy's ascontiguousarray makes it (a 0-D X: [1])."""
    return tuple(x.shape) or (1,)


def reshape_meta(attrs, ins, facts):
    """reshape and reshape2: Out of the shape attribute's shape (0 copies X's dim, one -1 is inferred)."""
    x = ins["X"]
    return _viewed(x, reshape_shape(x.shape, math.prod(x.shape), attrs["shape"]))


def flatten_meta(attrs, ins, facts):
    """flatten and flatten2: Out [rows, cols], the dims before ``axis`` the rows (a 0-D X: [1], Paddle 2.6's)."""
    x, axis = ins["X"], attrs["axis"]
    if not len(x.shape):
        return _viewed(x, (1,))
    rows = math.prod(x.shape[:axis])
    return _viewed(x, (rows, math.prod(x.shape) // rows if rows else math.prod(x.shape[axis:])))


def squeeze_meta(attrs, ins, facts):
    """squeeze and squeeze2: Out without the listed dims of size 1 (every one when none are listed)."""
    x = ins["X"]
    drop = squeeze_axes(x.shape, attrs["axes"])
    return _viewed(x, [d for i, d in enumerate(_shape(x)) if i not in drop])


def unsqueeze_meta(attrs, ins, facts):
    """unsqueeze and unsqueeze2: Out with dims of size 1 inserted at ``axes``."""
    x = ins["X"]
    return _viewed(x, unsqueeze_shape(x.shape, attrs["axes"]))


def flatten_range_meta(attrs, ins, facts):
    """flatten_contiguous_range: the dims start_axis..stop_axis merged into one (a 0-D X: [1]); axes that are
    none of X's (its shape rule refused them when the op was built) leave X's shape, as the kernel did."""
    x = ins["X"]
    return _viewed(x, flattened_shape(x.shape, attrs) or _shape(x))


def reshape_grad_meta(attrs, ins, facts):
    """The grad ops of the reshaping ops above: X@GRAD is Out@GRAD in X's shape (X's, or XShape's behind its
    leading 0: Fluid's ``*2_grad`` ops)."""
    like = ins.get("X")
    shape = like.shape if like is not None else ins["XShape"].shape[1:]
    dout = ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(shape), dout.dtype)}, "view", views={"X@GRAD": "Out@GRAD"})


def transpose_meta(attrs, ins, facts):
    """transpose and transpose2: Out's dim i is X's dim axis[i] (a negative axis counted from the end)."""
    x = ins["X"]
    meta = _permuted(x, attrs["axis"], "X", "Out")
    return meta._replace(outputs=dict(meta.outputs, XShape=((0, *x.shape), x.dtype)))


def transpose_grad_meta(attrs, ins, facts):
    """transpose_grad and transpose2_grad: X@GRAD is Out@GRAD permuted back."""
    return _permuted(ins["Out@GRAD"], inverse_axis(attrs["axis"]), "Out@GRAD", "X@GRAD")


def _permuted(x, axis, src, slot):
    """``slot`` = ``src`` permuted by ``axis``: "view" where no dim of more than one element passes another (or X
    is empty), "swap" a loop (args: X as [A, B, C, D], B and C swapped; ``slot``; the loop swap_middle, or
    swap_tiles where D is short), else "copy" (args: the permutation, ``slot``)."""
    ndim, dtype = len(x.shape), np.dtype(x.dtype)
    perm = [a % ndim if ndim else a for a in axis]
    if len(perm) != ndim:  # (numpy's refusals, as the kernel's np.transpose gave them)
        raise ValueError("axes don't match array")
    if len(set(perm)) != ndim:
        raise ValueError("repeated axis in transpose")
    shape = tuple(x.shape[p] for p in perm)
    swap = _swapped_blocks(x.shape, dtype, perm)
    if swap is not None:
        loop = "swap_middle" if swap[3] >= SWAP_LOOP_ROW else "swap_tiles"
        return Meta({slot: (shape, dtype)}, "swap", loop, (src,), args=(swap, slot))
    moved = [p for p in perm if x.shape[p] != 1]
    if not shape or 0 in shape or moved == sorted(moved):
        return Meta({slot: (shape, dtype)}, "view", views={slot: src})  # (a 0-D X: 0-D, as Paddle 2.6's)
    return Meta({slot: (shape, dtype)}, "copy", loop_inputs=(src,), args=(tuple(perm), slot))


def _swapped_blocks(shape, dtype, perm):
    """X's shape as [A, B, C, D] where the permutation swaps two adjacent runs of axes (B and C: the head split's
    one axis each, NCHW to NHWC's C and HW, a matrix's transpose) and keeps the others (A the product of those
    before, D of those after), X is float and large enough for a loop to pay; else None."""
    if math.prod(shape) < SWAP_LOOP_MIN or dtype not in _FLOATS:
        return None
    moved = [i for i, a in enumerate(perm) if a != i]
    if not moved:
        return None
    i, k = moved[0], moved[-1] + 1
    j = perm[i]
    blocks = math.prod(shape[:i]), math.prod(shape[i:j]), math.prod(shape[j:k]), math.prod(shape[k:])
    if perm[i:k] != [*range(j, k), *range(i, j)] or 1 in blocks[1:3]:  # (a run of 1 element: a view)
        return None
    return blocks
