"""Pure shape and geometry rules, the one home shared by shape inference (``pe_cli/ops``) and the
kernels (``pe_cli/kernels``), so that build time and run time always agree on output shapes.

A leaf: imports nothing of pe. Shapes are sequences of ints; at build time a dim may be unknown
(-1 or None), at run time every dim is known. Rules that can fail return ``(result, error)`` with
``error`` a sentence (or None): the caller adds where it happened (the layer, or the kernel) and raises.
"""

import math


# -- sizes ------------------------------------------------------------------------------------------


def numel(dims):
    """The product of ``dims`` (1 for no dims); every dim must be known."""
    n = 1
    for d in dims:
        n *= d
    return n


def known_numel(dims):
    """The product of ``dims``, or -1 when any dim is unknown (-1 or None)."""
    n = 1
    for d in dims:
        if d is None or d < 0:
            return -1
        n *= d
    return n


def is_known(dims):
    return all(d is not None and d >= 0 for d in dims)


def fmt_shape(shape):
    """``[2, ?, 4]``: a shape as messages print it, unknown dims as ``?``."""
    return "[" + ", ".join("?" if d is None else str(d) for d in (shape or ())) + "]"


# -- reshape, squeeze, unsqueeze ------------------------------------------------------------------


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


# -- split and slice -------------------------------------------------------------------------------


def split_sizes(x_shape, axis, num, sections):
    """(sizes, error): split's part sizes along ``axis`` (in [0, rank)): ``num`` equal parts (``sections``
    then unread, as Fluid's), or ``sections`` with at most one -1 taking the rest. Sizes are -1 where X's
    dim is unknown."""
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
    if sections.count(-1) > 1 or any(s < -1 or s == 0 for s in sections):
        return None, f"sections={sections}: each section must be > 0, with at most one -1 (inferred)"
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


# -- conv2d and pool2d geometry --------------------------------------------------------------------


def conv_paddings(paddings, algorithm, in_hw, ksize, strides, dilations):
    """Explicit paddings [top, bottom, left, right] (two per spatial dim: 3-D convolution has six) and
    the dilations to use, under Fluid's ``padding_algorithm``: EXPLICIT takes ``paddings`` (one per dim,
    [h, w], or two, [t, b, l, r]); VALID pads nothing;
    SAME pads so that out = ceil(in / stride) and (as Paddle does) uses dilation 1."""
    if algorithm == "VALID":
        return [0, 0] * len(in_hw), list(dilations)[: len(in_hw)]
    if algorithm == "SAME":
        pads = []
        for size, k, s in zip(in_hw, ksize, strides):
            if size is None or size < 0:
                pads += [0, 0]
                continue
            out = (size + s - 1) // s
            total = max((out - 1) * s + k - size, 0)
            pads += [total // 2, total - total // 2]
        return pads, [1] * len(in_hw)
    p = list(paddings)
    if len(p) == len(in_hw):  # one padding per dim: the same before and after
        p = [v for pad in p for v in (pad, pad)]
    return p, list(dilations)[: len(in_hw)]  # Fluid reads one dilation per dim, the first ones


def conv_out_size(size, k, pad_before, pad_after, stride, dilation):
    """Output length along one dim (-1 when the input length is unknown), Fluid's: its C++ division rounds
    toward zero (an extent past the padded input by less than a stride still gives one output)."""
    if size is None or size < 0:
        return -1
    span = size + pad_before + pad_after - (dilation * (k - 1) + 1)
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def unfold_blocks(x_shape, attrs):
    """(out_h, out_w): how many sliding blocks unfold (im2col) takes along H and W of x [N, C, H, W]."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr), (dh, dw) = (
        attrs[k] for k in ("kernel_sizes", "strides", "paddings", "dilations")
    )
    return conv_out_size(x_shape[2], kh, pu, pd, sh, dh), conv_out_size(x_shape[3], kw, pl, pr, sw, dw)


def conv_geometry(x_shape, w_shape, attrs):
    """(paddings [t, b, l, r], dilations, [out_h, out_w]) of conv2d on Input ``x_shape`` [N, C, H, W]
    with Filter ``w_shape`` [M, C/groups, kh, kw]."""
    strides = attrs["strides"]
    pads, dil = conv_paddings(
        attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:], strides, attrs["dilations"]
    )
    out_hw = [
        conv_out_size(x_shape[2 + i], w_shape[2 + i], pads[2 * i], pads[2 * i + 1], strides[i], dil[i])
        for i in range(2)
    ]
    return pads, dil, out_hw


def conv_mismatch(x_shape, w_shape, groups, pads, dil, out_hw):
    """Why Input and Filter cannot convolve (channels, groups, fit), or None. Unknown dims pass."""
    x, w = x_shape, w_shape
    if is_known([x[1], w[1]]) and x[1] != w[1] * groups:
        return (
            f"Input {fmt_shape(x)} has {x[1]} channels but Filter {fmt_shape(w)} with groups={groups} "
            f"expects {w[1] * groups}"
        )
    if is_known([w[0]]) and w[0] % groups:
        return f"Filter {fmt_shape(w)}: num_filters {w[0]} is not divisible by groups={groups}"
    if any(is_known([x[2 + i]]) and out_hw[i] <= 0 for i in range(2)):
        return (
            f"Filter {fmt_shape(w)} (dilations {dil}, paddings {pads}) does not fit Input {fmt_shape(x)}: "
            f"the output would be {out_hw[0]}x{out_hw[1]}"
        )
    return None


def pool_out_size(size, k, pad_before, pad_after, stride, ceil_mode):
    """Fluid's PoolOutputSize: its C++ division rounds toward zero."""
    if size is None or size < 0:
        return -1
    span = size + pad_before + pad_after - k + (stride - 1 if ceil_mode else 0)
    return (span // stride if span >= 0 else -(-span // stride)) + 1


def adaptive_size(attrs, in_sizes):
    """An adaptive pooling's output size: ksize, or the input's own with global_pooling (Fluid sets ksize to
    the input's size first)."""
    return list(in_sizes) if attrs["global_pooling"] else list(attrs["ksize"])


def pool_geometry(attrs, in_hw):
    """(ksize, strides, paddings [t, b, l, r]) of a pool2d op for an input of spatial size ``in_hw``."""
    if attrs["global_pooling"]:
        return list(in_hw), [1, 1], [0, 0, 0, 0]
    ksize, strides = list(attrs["ksize"]), list(attrs["strides"])
    pads, _ = conv_paddings(attrs["paddings"], attrs["padding_algorithm"], in_hw, ksize, strides, [1, 1])
    return ksize, strides, pads


# -- normalization and embedding lookup ------------------------------------------------------------


def bn_channel_axis(ndim, layout):
    """The channel axis of batch_norm's X: last for NHWC, else 1."""
    return ndim - 1 if layout == "NHWC" else 1


def lookup_out_shape(ids_shape, width):
    """Fluid's lookup_table: Ids [..., 1] -> [..., D]; Ids [N] (or [..., T]) -> [N, D] ([..., T, D])."""
    ids_shape = list(ids_shape)
    if len(ids_shape) > 1 and ids_shape[-1] == 1:
        ids_shape = ids_shape[:-1]
    return ids_shape + [width]


def layer_norm_split(shape, begin_norm_axis):
    """layer_norm's view of X as a matrix: (rows, columns), rows the product of the dims before
    ``begin_norm_axis``, each row normalized over the rest."""
    rows = 1
    for d in tuple(shape)[:begin_norm_axis]:
        rows *= d
    size = 1
    for d in shape:
        size *= d
    return rows, size // max(rows, 1)


def range_length(start, end, step, integer):
    """The length of Fluid's range(start, end, step): for ints (``integer``)
    ceil(|end - start| / |step|) in integer arithmetic, for floats ceil(|(end - start) / step|)
    computed in the values' own type. None when step is 0 or points away from end."""
    if step == 0 or (end - start) * step < 0:
        return None
    if integer:
        return int((abs(end - start) + abs(step) - 1) // abs(step))
    return int(math.ceil(abs((end - start) / step)))


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


# -- pool3d ------------------------------------------------------------------------------------------


def pool3d_geometry(attrs, in_dhw):
    """(ksize, strides, paddings [front, back, top, bottom, left, right]) for spatial size ``in_dhw``."""
    if attrs["global_pooling"]:
        return list(in_dhw), [1, 1, 1], [0] * 6
    ksize, strides = list(attrs["ksize"]), list(attrs["strides"])
    p = list(attrs["paddings"])
    if attrs["padding_algorithm"] == "VALID":
        p = [0] * 6
    elif attrs["padding_algorithm"] == "SAME":
        p, _ = conv_paddings(p, "SAME", in_dhw, ksize, strides, [1, 1, 1])
    elif len(p) == 3:
        p = [p[0], p[0], p[1], p[1], p[2], p[2]]
    return ksize, strides, p


def pool3d_out(attrs, in_dhw):
    """[out_d, out_h, out_w] of pool3d (adaptive: ksize itself)."""
    if attrs["adaptive"]:
        return adaptive_size(attrs, in_dhw)
    ksize, strides, pads = pool3d_geometry(attrs, in_dhw)
    return [
        pool_out_size(in_dhw[i], ksize[i], pads[2 * i], pads[2 * i + 1], strides[i], attrs["ceil_mode"])
        for i in range(3)
    ]


def conv_transpose_geometry(x_shape, w_shape, attrs, check_size=True):
    """(paddings [t, b, l, r], dilations, [out_h, out_w], error or None) of conv2d_transpose on Input
    ``x_shape`` [N, C_in, H, W] with Filter ``w_shape`` [C_in, C_out/groups, kh, kw]: out = (in - 1) *
    stride - pads + dilation * (k - 1) + 1 (+ ``output_padding``, 2.x's attribute), or ``output_size``
    when given, which must lie in [that, that + stride) (the sizes conv2d maps back to H and W; not checked
    without ``check_size``: Fluid checks it when the op runs). Unknown dims give -1."""
    strides, out_size = attrs["strides"], list(attrs.get("output_size") or [])
    pads, dil = conv_paddings(
        attrs["paddings"], attrs["padding_algorithm"], x_shape[2:], w_shape[2:], strides, attrs["dilations"]
    )
    out_hw = []
    for i in range(2):
        size = x_shape[2 + i]
        if size is None or size < 0:
            out_hw.append(out_size[i] if out_size else -1)
            continue
        least = (size - 1) * strides[i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w_shape[2 + i] - 1) + 1
        if check_size and out_size and not least <= out_size[i] < least + strides[i]:
            return (
                pads,
                dil,
                out_hw,
                (
                    f"output_size {out_size} must be in [{least}, {least + strides[i]}) along "
                    f"dim {2 + i} for Input {fmt_shape(x_shape)} and Filter {fmt_shape(w_shape)}"
                ),
            )
        if least <= 0:
            return (
                pads,
                dil,
                out_hw,
                (f"Filter {fmt_shape(w_shape)} (paddings {pads}) leaves no output for Input {fmt_shape(x_shape)}"),
            )
        extra = list(attrs.get("output_padding") or [0, 0])[i]
        if extra and not extra < max(strides[i], dil[i]):
            return (
                pads,
                dil,
                out_hw,
                (
                    f"output_padding {list(attrs['output_padding'])} must be less than the "
                    f"stride or the dilation along dim {2 + i}"
                ),
            )
        out_hw.append(out_size[i] if out_size else least + extra)
    return pads, dil, out_hw, None


def mask_pool_out(in_dims, attrs):
    """max_pool2d/3d_with_index's output size per dim (-1 where the input's is unknown): ksize when
    adaptive (X's own size with global pooling too, whose ksize Fluid sets to X's), 1 for global pooling,
    else (in + 2 * padding - ksize) / stride + 1 (no ceil_mode; Fluid's C++ division, toward zero)."""
    if attrs["adaptive"]:
        return [-1 if d is None else d for d in in_dims] if attrs["global_pooling"] else list(attrs["ksize"])
    if attrs["global_pooling"]:
        return [1] * len(in_dims)
    return [
        -1 if d is None or d < 0 else pool_out_size(d, k, p, p, s, False)
        for d, k, s, p in zip(in_dims, attrs["ksize"], attrs["strides"], attrs["paddings"])
    ]


def unpool_out(in_dims, attrs):
    """unpool/unpool3d's output size: output_size, else (in - 1) * stride - 2 * padding + ksize per dim."""
    if attrs["output_size"]:
        return list(attrs["output_size"])
    return [
        -1 if d is None or d < 0 else (d - 1) * s - 2 * p + k
        for d, k, s, p in zip(in_dims, attrs["ksize"], attrs["strides"], attrs["paddings"])
    ]
