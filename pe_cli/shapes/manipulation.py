"""The manipulation family's shape rules (reshape, squeeze, unsqueeze, split, slice, strided_slice,
crop, range), shared by shape inference (``pe_cli/ops``) and the kernels of both devices; cast's meta rule
(a structured kernel, shapes/structured.py).

Rules that can fail return ``(result, error)`` with ``error`` a sentence (or None): the caller adds
where it happened (the layer, or the kernel) and raises. At build time a dim may be unknown (-1 or None)."""

import math

import numpy as np

from ..base.dims import fmt_shape, is_known, numel
from .structured import Meta


def reshape_target(x_shape, shape):
    """Fluid's reshape rule: 0 copies X's dim at that index, one -1 takes what is left.
    Returns (shape, error message or None). Where X has unknown (-1) dims that are not copied
    through by a 0, the -1 stays unknown and the sizes are checked at run time."""
    shape = [int(d) for d in shape]
    out = []
    for i, d in enumerate(shape):
        if d == 0 and i >= len(x_shape):
            return None, f"shape[{i}] is 0 (copy X's dim {i}), but X has only {len(x_shape)} dims"
        out.append(x_shape[i] if d == 0 else d)
    copied = {i for i, d in enumerate(shape) if d == 0}
    x_rest = [d for j, d in enumerate(x_shape) if j not in copied]  # copied dims cancel out
    if not is_known(x_rest):
        return out, None
    size = numel(x_rest)
    what = "X's elements" if not copied else "X's elements (apart from the dims copied by 0)"
    if -1 in shape:
        hole = shape.index(-1)
        known = numel(d for j, d in enumerate(out) if j != hole and j not in copied)
        if known == 0 or size % known:
            return None, f"{what}, {size}, are not a multiple of {known}, so the -1 cannot be inferred"
        out[hole] = size // known
    else:
        wanted = numel(d for j, d in enumerate(out) if j not in copied)
        if wanted != size:
            return None, f"{what} number {size}, but the shape holds {wanted}"
    return out, None


def squeeze_axes(x_shape, axes):
    """(axes, error): the axes squeeze removes, in [0, rank): the listed ones (each of size 1, or
    unknown at build time), or every dim of size 1 when none are listed."""
    rank = len(x_shape)
    if not axes:
        return tuple(i for i, d in enumerate(x_shape) if d == 1), None
    drop = []
    for a in axes:
        if not -rank <= a < rank:
            return None, f"axis {a} is out of range (expected {-rank} <= axis < {rank})"
        a %= rank
        if x_shape[a] not in (1, -1, None):
            return None, f"dim {a} has size {x_shape[a]}, only dims of size 1 can be squeezed"
        if a not in drop:
            drop.append(a)
    return tuple(drop), None


def squeeze_shape(x_shape, axes):
    """(shape, error): X's shape without the listed size-1 dims (all size-1 dims if none listed)."""
    drop, error = squeeze_axes(x_shape, axes)
    if error:
        return None, error
    return [d for i, d in enumerate(x_shape) if i not in drop], None


def unsqueeze_shape(x_shape, axes):
    """(shape, error): size-1 dims inserted one after another, as Fluid does: each axis indexes the
    shape built so far, a negative one counting from its end (-1: append)."""
    out = list(x_shape)
    for a in axes:
        pos = a + len(out) + 1 if a < 0 else a
        if not 0 <= pos <= len(out):
            return None, f"axis {a} is out of range for a shape of rank {len(out)}"
        out.insert(pos, 1)
    return out, None


def split_sizes(x_shape, axis, num, sections):
    """(sizes, error): split's part sizes along ``axis`` (in [0, rank)): ``num`` equal parts (``sections``
    then unread, as Fluid's), or ``sections`` with at most one -1 taking the rest; a 0 section is an empty
    part, as Paddle 2.x's. Sizes are -1 where X's dim is unknown."""
    dim = x_shape[axis]
    sections = list(sections)
    if not num and not sections:
        return None, "split needs num > 0 or a list of sections"
    if num:
        if dim >= 0 and dim % num:
            return None, (
                f"X {fmt_shape(x_shape)} cannot split into {num} equal parts along axis {axis} "
                f"({dim} is not divisible by {num})"
            )
        return [dim // num if dim >= 0 else -1] * num, None
    if sections.count(-1) > 1 or any(s < -1 for s in sections):
        return None, f"sections={sections}: each section must be >= 0, with at most one -1 (inferred)"
    if dim < 0:
        return [-1] * len(sections), None
    known = sum(s for s in sections if s > 0)
    if -1 in sections:
        if known >= dim:
            return None, (
                f"sections={sections} leave nothing for the -1 section of X {fmt_shape(x_shape)} along axis {axis}"
            )
        sections[sections.index(-1)] = dim - known
    elif known != dim:
        return None, f"sections={sections} sum to {known}, but X {fmt_shape(x_shape)} has {dim} along axis {axis}"
    return sections, None


def slice_bounds(dim, start, end):
    """Python-style bounds on a dim of size ``dim``: negatives count from the end, then clamp."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    return min(max(start, 0), dim), min(max(end, 0), dim)


def column_window(n, start_index, length):
    """(start, stop) of partial_concat / partial_sum's column window in n columns: a negative
    start_index counts from the end, length -1 runs to the end; a ValueError when it falls outside."""
    start = start_index + n if start_index < 0 else start_index
    if not 0 <= start < n:
        raise ValueError(f"start_index {start_index} is outside the inputs' {n} columns")
    stop = n if length < 0 else start + length
    if stop > n:
        raise ValueError(f"start_index {start_index} + length {length} runs past the inputs' {n} columns")
    return start, stop


SLICE_END = 10000000  # Fluid's "to the end" of a dim in slice bounds


def slice_window(shape, axes, starts, ends):
    """(start per dim, size per dim) of slice's window over a known ``shape``."""
    first, sizes = [0] * len(shape), list(shape)
    for a, s, e in zip(axes, starts, ends):
        a %= len(shape)
        lo, hi = slice_bounds(shape[a], s, e)
        first[a], sizes[a] = lo, max(hi - lo, 0)
    return first, sizes


def strided_window(shape, axes, starts, ends, strides):
    """(first index, size, step) per dim of strided_slice over a known ``shape``: Python's slicing
    (negative bounds count from the end, out-of-range ones clamp), except that an end of -1 with a
    negative stride runs through index 0 (Fluid's stand-in for "no end")."""
    first, sizes, steps = [0] * len(shape), list(shape), [1] * len(shape)
    for a, s, e, st in zip(axes, starts, ends, strides):
        a %= len(shape)
        lo, hi, step = slice(s, None if (e == -1 and st < 0) else e, st).indices(shape[a])
        first[a], sizes[a], steps[a] = lo, len(range(lo, hi, step)), step
    return first, sizes, steps


def crop_window(x_shape, shape, offsets):
    """(offsets, output shape) of crop / crop_tensor: a -1 in ``shape`` takes X's dim less its offset;
    offsets default to 0. Returns ((offsets, out), None) or (None, error)."""
    offsets = list(offsets) or [0] * len(x_shape)
    if len(shape) != len(x_shape) or len(offsets) != len(x_shape):
        return None, f"shape {list(shape)} and offsets {offsets} need one entry per dim of X {list(x_shape)}"
    out = []
    for d, n, o in zip(x_shape, shape, offsets):
        if o < 0 or n == 0 or n < -1:
            return None, f"offsets must be >= 0 and shape > 0 (or -1), got shape {list(shape)}, offsets {offsets}"
        size = (d - o if d >= 0 else -1) if n == -1 else n
        if d >= 0 and (size <= 0 or o + size > d):
            return None, f"a window of shape {list(shape)} at offsets {offsets} does not fit in X {list(x_shape)}"
        out.append(size)
    return (offsets, out), None


def range_length(start, end, step, integer):
    """The length of Fluid's range(start, end, step): for ints (``integer``)
    ceil(|end - start| / |step|) in integer arithmetic, for floats ceil(|(end - start) / step|)
    computed in the values' own type. None when step is 0 or points away from end."""
    if step == 0 or (end - start) * step < 0:
        return None
    if integer:
        return int((abs(end - start) + abs(step) - 1) // abs(step))
    return int(math.ceil(abs((end - start) / step)))


def inverse_axis(axis):
    """The permutation that undoes transpose's ``axis`` (a negative entry counted from the end): transpose_grad's."""
    perm = [a % len(axis) for a in axis]
    return [perm.index(i) for i in range(len(perm))]


def cast_meta(attrs, ins, facts):
    """cast (X -> Out of X's shape, dtype ``out_dtype``): "paddle_float16" to float16 from another dtype
    (Paddle's CPU conversion: kernels/cpu/manipulation.paddle_float16, a numpy form that makes its array:
    ``fresh``), else "astype" (numpy's conversion, into the buffer handed). Refuses nothing: the shape rule did
    at build time."""
    x, dtype = ins["X"], np.dtype(attrs["out_dtype"])
    if dtype == np.float16 and x.dtype != np.float16:
        return Meta({"Out": (tuple(x.shape), dtype)}, "paddle_float16", fresh=True)
    return Meta({"Out": (tuple(x.shape), dtype)}, "astype")


def shape_meta(attrs, ins, facts):
    """shape's Out: Input's dims (a SelectedRows': its value's, [rows, ...]), int32 [rank]; "dims"."""
    return Meta({"Out": ((len(ins["Input"].shape),), np.dtype(np.int32))}, "dims")


def size_meta(attrs, ins, facts):
    """size's Out: Input's number of elements, int64 [1] (0-D in a Paddle 2.x program, ``facts.zero_dim``)."""
    return Meta({"Out": ((1,) if not facts.zero_dim else (), np.dtype(np.int64))}, "count")
