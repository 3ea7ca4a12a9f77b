"""The padding family's geometry, shared by the kernels of both devices: pad2d's and pad3d's sizes and the
position of X each padded position copies, crop's and crop_tensor's window."""

import numpy as np

from ..base.dims import fmt_shape
from ..base.errors import PeError
from .manipulation import crop_window
from .structured import Meta


def pad_source(n, before, after, mode):
    """For each position of a dim of size n padded by (before, after): the position of X it copies,
    or -1 for a constant pad value."""
    pos = np.arange(-before, n + after, dtype=np.int64)
    if mode in ("edge", "replicate"):
        return np.clip(pos, 0, n - 1)
    if mode == "circular":
        return pos % n
    if mode == "reflect":
        if n > 1:
            period = 2 * (n - 1)
            pos = np.abs(pos) % period
            return np.where(pos >= n, period - pos, pos)
        return np.zeros_like(pos)
    return np.where((pos >= 0) & (pos < n), pos, -1)


def pad_geometry(op, x_shape, attrs, paddings=None):
    """(spatial sizes, (before, after) per spatial dim, channels last) of pad2d (paddings [top,
    bottom, left, right]) or pad3d ([left, right, top, bottom, front, back], or the Paddings tensor's
    values), checked."""
    fmt = attrs["data_format"]
    last = fmt != "NCHW" if op == "pad2d" else fmt == "NDHWC"  # Fluid's pad2d: NCHW, else channels last
    sizes = list(x_shape[1:-1] if last else x_shape[2:])
    p = [int(v) for v in (attrs["paddings"] if paddings is None else np.asarray(paddings).reshape(-1))]
    pairs = [(p[0], p[1]), (p[2], p[3])] if op == "pad2d" else [(p[4], p[5]), (p[2], p[3]), (p[0], p[1])]
    if error := padding_mismatch(p, sizes, pairs, attrs["mode"]):
        raise PeError(f"{op}: {error}")
    return sizes, pairs, last


def padding_mismatch(paddings, sizes, pairs, mode):
    """Why ``pairs`` ((before, after) per spatial dim, from ``paddings`` as given) do not fit X's spatial
    ``sizes``, or None: reflect padding must be smaller than the size, and each padded size at least 1.
    Unknown sizes (-1 or None) pass."""
    known = [(n, pr) for n, pr in zip(sizes, pairs) if n is not None and n >= 0]
    if mode == "reflect" and any(max(pr) >= n for n, pr in known):
        return f"reflect padding {list(paddings)} must be smaller than X's spatial sizes {fmt_shape(sizes)}"
    if any(n + b + e < 1 for n, (b, e) in known):
        return (
            f"paddings {list(paddings)} leave no output of X's spatial sizes {fmt_shape(sizes)} "
            f"(each padded size must be >= 1)"
        )
    return None


def pad_maps(op, x_shape, attrs, paddings=None):
    """(pad_source along each spatial dim, (before, after) per dim, channels last)."""
    sizes, pairs, last = pad_geometry(op, x_shape, attrs, paddings)
    return [pad_source(n, b, e, attrs["mode"]) for n, (b, e) in zip(sizes, pairs)], pairs, last


def crop_geometry(ins, attrs):
    """(offsets, output shape) of crop / crop_tensor on this run's X (and Y), checked."""
    x_shape = tuple(ins["X"].shape)
    shape = list(ins["Y"].shape) if "Y" in ins else list(attrs["shape"])
    window, error = crop_window(x_shape, shape, attrs["offsets"])
    if error:
        raise PeError(f"cannot crop X {list(x_shape)}: {error}")
    return window


def crop_tensor_attrs(ins, attrs):
    """crop_tensor's attributes as its kernel reads them: a size <= 0 of the shape attribute is -1 (X's dim
    less the offset), as Fluid's run-time shape inference leaves it; a Shape / ShapeTensor's are as given."""
    if "Shape" in ins or ins.get("ShapeTensor"):
        return attrs
    return dict(attrs, shape=[n if n > 0 else -1 for n in attrs["shape"]])


# -- meta rules (structured kernels, shapes/structured.py; CPU out-kernels: kernels/cpu/padding.py) ---------------
#
# Each reads its inputs' shapes and dtypes and the op's attributes (paddings, offsets and shapes given by tensors:
# their values replace the attributes before the rule runs, the ops' attr_tensors, so such a step decides on every
# run), never a value; a refusal is the one line the kernels always gave. An output that is all of an input
# (a crop of all of X, a gradient's window of all of Out@GRAD in its dtype) is that input in the output's shape
# (Meta.views: no copy where it is C-contiguous, as numpy's ascontiguousarray of the window gave it).


def _window_or_view(slot, shape, dtype, src, source, index):
    """``slot`` of (shape, dtype): ``source`` (the input ``src``) at ``index`` copied into the buffer ("window"),
    or ``source`` itself where the index takes all of it in its dtype ("view")."""
    if tuple(source.shape) == tuple(shape) and source.dtype == dtype and all(s.start == 0 for s in index):
        return Meta({slot: (tuple(shape), dtype)}, "view", views={slot: src})
    return Meta({slot: (tuple(shape), dtype)}, "window", args=(index, src, slot))


def pad_meta(attrs, ins, facts):
    """pad: Out = X with paddings[2i] values before and paddings[2i+1] after it along dim i, all pad_value ("pad":
    args X's window in Out); negative paddings refused as numpy's pad refused them."""
    x, p = ins["X"], attrs["paddings"]
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(len(x.shape))]
    if any(b < 0 or e < 0 for b, e in pairs):
        raise ValueError("index can't contain negative values")
    out = tuple(n + b + e for n, (b, e) in zip(x.shape, pairs))
    return Meta({"Out": (out, x.dtype)}, "pad", args=(tuple(slice(b, b + n) for n, (b, _) in zip(x.shape, pairs)),))


def pad_grad_meta(attrs, ins, facts):
    """pad_grad: X@GRAD (X's shape, Out@GRAD's dtype) = Out@GRAD's window over X."""
    x, dout, p = ins["X"], ins["Out@GRAD"], attrs["paddings"]
    index = tuple(slice(p[2 * i], p[2 * i] + n) for i, n in enumerate(x.shape))
    return _window_or_view("X@GRAD", x.shape, dout.dtype, "Out@GRAD", dout, index)


_COPYING = ("reflect", "edge", "replicate", "circular")  # (any other mode pads with the value: Fluid's pad2d)


def _pad_nd(op, x, attrs):
    """(Out's shape, (before, after) per spatial dim, the spatial sizes, the first spatial axis) of pad2d / pad3d."""
    sizes, pairs, last = pad_geometry(op, x.shape, attrs)
    first = 1 if last else 2
    out = list(x.shape)
    for k, (n, (b, e)) in enumerate(zip(sizes, pairs)):
        out[first + k] = n + b + e
    return tuple(out), pairs, sizes, first


def _kept(sizes, pairs, first):
    """The windows of X and of Out that X's values kept (a negative padding crops X): (X's index, Out's index)."""
    x_index, out_index = [slice(None)] * first, [slice(None)] * first
    for n, (b, e) in zip(sizes, pairs):
        kept = max(n - max(-b, 0) - max(-e, 0), 0)
        x_index.append(slice(max(-b, 0), max(-b, 0) + kept))
        out_index.append(slice(max(b, 0), max(b, 0) + kept))
    return tuple(x_index), tuple(out_index)


def _source_index(sizes, pairs, mode):
    """The flat position within X's spatial dims that each of Out's copies (pad_source along each dim)."""
    flat = np.zeros((), np.int64)
    for n, (b, e) in zip(sizes, pairs):
        flat = flat[..., None] * n + pad_source(n, b, e, mode)
    return flat.reshape(-1)


def _pad_nd_meta(op, value_attr, attrs, ins):
    x = ins["X"]
    out, pairs, sizes, first = _pad_nd(op, x, attrs)
    if attrs["mode"] not in _COPYING:  # the value around what X keeps
        return Meta({"Out": (out, x.dtype)}, "constant", args=(value_attr, *_kept(sizes, pairs, first)))
    return Meta({"Out": (out, x.dtype)}, "take", args=(_source_index(sizes, pairs, attrs["mode"]), first))


def pad2d_meta(attrs, ins, facts):
    """pad2d: "constant" (any mode but reflect and edge: pad_value around X's values, a negative padding
    cropping X; args the value's attribute, X's kept window and its place in Out) or "take" (reflect, edge: each of Out's
    pixels the one of X it copies, one gather; args the flat source positions, the first spatial axis)."""
    return _pad_nd_meta("pad2d", "pad_value", attrs, ins)


def pad3d_meta(attrs, ins, facts):
    """pad3d: pad2d's variants over three spatial dims (constant; reflect, replicate, circular: "take")."""
    return _pad_nd_meta("pad3d", "value", attrs, ins)


def _pad_nd_grad_meta(op, attrs, ins):
    """X@GRAD (X's shape, Out@GRAD's dtype): "window" (constant: Out@GRAD at X's kept window, 0 where a negative
    padding cropped X; args the two windows, whether X is cropped) or "fold" (along each spatial dim in turn, Out@GRAD's positions
    that copy X's own copied, then each padded one added onto the position it copies, in order: scratch the
    partial sums between dims, "@fold0", ...; args the source positions along each dim, (before, after) per
    dim, the first spatial axis)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    _, pairs, sizes, first = _pad_nd(op, x, attrs)
    shape, dtype = tuple(x.shape), dout.dtype
    if attrs["mode"] not in _COPYING:
        x_index, out_index = _kept(sizes, pairs, first)
        cropped = any(s.stop - s.start != n for s, n in zip(x_index[first:], sizes))
        return Meta({"X@GRAD": (shape, dtype)}, "window", args=(x_index, out_index, cropped))
    maps = tuple(pad_source(n, b, e, attrs["mode"]) for n, (b, e) in zip(sizes, pairs))
    partial, scratch = list(dout.shape), {}
    for k, n in enumerate(sizes[:-1]):
        partial[first + k] = n
        scratch[f"@fold{k}"] = (tuple(partial), dtype)
    return Meta({"X@GRAD": (shape, dtype)}, "fold", scratch=scratch, args=(maps, tuple(pairs), first))


def pad2d_grad_meta(attrs, ins, facts):
    return _pad_nd_grad_meta("pad2d", attrs, ins)


def pad3d_grad_meta(attrs, ins, facts):
    return _pad_nd_grad_meta("pad3d", attrs, ins)


def pad_constant_like_meta(attrs, ins, facts):
    """pad_constant_like: Out (X's shape, Y's dtype) = Y at its start, pad_value after it ("like": args Y's window)."""
    x, y = ins["X"], ins["Y"]
    return Meta({"Out": (tuple(x.shape), y.dtype)}, "like", args=(tuple(slice(0, n) for n in y.shape),))


def pad_constant_like_grad_meta(attrs, ins, facts):
    """pad_constant_like_grad: Y@GRAD (Y's shape, Out@GRAD's dtype) = Out@GRAD's window of Y's shape."""
    y, dout = ins["Y"], ins["Out@GRAD"]
    return _window_or_view("Y@GRAD", y.shape, dout.dtype, "Out@GRAD", dout, tuple(slice(0, n) for n in y.shape))


def _crop_index(ins, attrs):
    offsets, out = crop_geometry(ins, attrs)
    return tuple(slice(o, o + n) for o, n in zip(offsets, out)), tuple(out)


def crop_meta(attrs, ins, facts):
    """crop: Out (X's dtype) = X's window at ``offsets`` of ``shape`` (Y's where Y is given): "window", or "view"
    where the window is all of X."""
    index, out = _crop_index(ins, attrs)
    return _window_or_view("Out", out, ins["X"].dtype, "X", ins["X"], index)


def crop_tensor_meta(attrs, ins, facts):
    """crop_tensor: crop's, a size <= 0 of the shape attribute X's dim less the offset."""
    return crop_meta(crop_tensor_attrs(ins, attrs), ins, facts)


def crop_grad_meta(attrs, ins, facts):
    """crop_grad: X@GRAD (X's shape and dtype) = Out@GRAD in the window, zeros elsewhere ("place"; args the window),
    or Out@GRAD itself where the window is all of X in X's dtype ("view")."""
    x, dout = ins["X"], ins["Out@GRAD"]
    index, out = _crop_index(ins, attrs)
    if out == tuple(x.shape) and dout.dtype == x.dtype and tuple(dout.shape) == out:
        return Meta({"X@GRAD": (out, x.dtype)}, "view", views={"X@GRAD": "Out@GRAD"})
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "place", args=(index,))


def crop_tensor_grad_meta(attrs, ins, facts):
    return crop_grad_meta(crop_tensor_attrs(ins, attrs), ins, facts)
