"""Kernels of ops/padding.py: numpy, as the other data-movement kernels. pad2d and pad3d read
through one index map per spatial dim (pad_source: constant, reflect, edge/replicate, circular),
which the CUDA kernels share."""

import numpy as np

from ...base.errors import PeError
from ...shapes.manipulation import crop_window


def pad(ins, attrs):
    x, p = ins["X"], attrs["paddings"]
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)]
    return {"Out": np.pad(x, pairs, constant_values=x.dtype.type(attrs["pad_value"]))}


def pad_grad(ins, attrs):
    x, dout, p = ins["X"], ins["Out@GRAD"], attrs["paddings"]
    window = tuple(slice(p[2 * i], p[2 * i] + n) for i, n in enumerate(x.shape))
    return {"X@GRAD": np.ascontiguousarray(dout[window])}


# -- pad2d, pad3d -----------------------------------------------------------------------------------


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
    if attrs["mode"] == "reflect" and any(max(pr) >= n for pr, n in zip(pairs, sizes)):
        raise PeError(f"{op}: reflect padding {p} must be smaller than X's spatial sizes {sizes} ({fmt})")
    if any(n + b + e < 1 for n, (b, e) in zip(sizes, pairs)):
        raise PeError(
            f"{op}: paddings {p} leave no output of X's spatial sizes {sizes} (each padded size must be >= 1)"
        )
    return sizes, pairs, last


def pad_maps(op, x_shape, attrs, paddings=None):
    """(pad_source along each spatial dim, (before, after) per dim, channels last)."""
    sizes, pairs, last = pad_geometry(op, x_shape, attrs, paddings)
    return [pad_source(n, b, e, attrs["mode"]) for n, (b, e) in zip(sizes, pairs)], pairs, last


def _first(a, last):
    return np.moveaxis(a, a.ndim - 1, 1) if last else a


def _back(a, last):
    return np.ascontiguousarray(np.moveaxis(a, 1, a.ndim - 1) if last else a)


def _pad(op, ins, attrs, value):
    maps, _, last = pad_maps(op, ins["X"].shape, attrs, ins.get("Paddings"))
    out = _first(ins["X"], last)
    for k, m in enumerate(maps):
        out = np.take(out, np.maximum(m, 0), axis=2 + k)
        if (m < 0).any():  # constant padding (pad2d's any mode but reflect and edge)
            out[(slice(None),) * (2 + k) + (m < 0,)] = value
    return {"Out": _back(out, last)}


def _pad_grad(op, ins, attrs):
    """Along each spatial dim: the run of output positions that copy X's own (all of X, or what a
    negative padding leaves of it) copied, then each other position added onto the position it copies
    (a loop over the paddings only); X's cropped positions get 0."""
    x = ins["X"]
    maps, pairs, last = pad_maps(op, x.shape, attrs, ins.get("Paddings"))
    d = _first(ins["Out@GRAD"], last)
    for k, (m, (before, after)) in enumerate(zip(maps, pairs)):
        at, n = (slice(None),) * (2 + k), m.size - before - after
        lo, hi = max(before, 0), min(before + n, m.size)  # the output positions j copying X[j - before]
        acc = np.zeros(d.shape[: 2 + k] + (n,) + d.shape[3 + k :], dtype=d.dtype)
        acc[at + (slice(lo - before, hi - before),)] = d[at + (slice(lo, hi),)]
        for j in np.flatnonzero((np.arange(m.size) < lo) | (np.arange(m.size) >= hi)):
            if m[j] >= 0:
                acc[at + (m[j],)] += d[at + (j,)]
        d = acc
    return {"X@GRAD": _back(d, last)}


def pad2d(ins, attrs):
    return _pad("pad2d", ins, attrs, attrs["pad_value"])


def pad2d_grad(ins, attrs):
    return _pad_grad("pad2d", ins, attrs)


def pad3d(ins, attrs):
    return _pad("pad3d", ins, attrs, attrs["value"])


def pad3d_grad(ins, attrs):
    return _pad_grad("pad3d", ins, attrs)


# -- pad_constant_like, crop ------------------------------------------------------------------------


def pad_constant_like(ins, attrs):
    x, y = ins["X"], ins["Y"]
    out = np.full(x.shape, attrs["pad_value"], dtype=y.dtype)
    out[tuple(slice(0, n) for n in y.shape)] = y
    return {"Out": out}


def pad_constant_like_grad(ins, attrs):
    y, dout = ins["Y"], ins["Out@GRAD"]
    return {"Y@GRAD": np.ascontiguousarray(dout[tuple(slice(0, n) for n in y.shape)])}


def crop_geometry(ins, attrs):
    """(offsets, output shape) of crop / crop_tensor on this run's X (and Y), checked."""
    x_shape = tuple(ins["X"].shape)
    shape = list(ins["Y"].shape) if "Y" in ins else list(attrs["shape"])
    window, error = crop_window(x_shape, shape, attrs["offsets"])
    if error:
        raise PeError(f"cannot crop X {list(x_shape)}: {error}")
    return window


def crop(ins, attrs):
    offsets, out = crop_geometry(ins, attrs)
    return {"Out": np.ascontiguousarray(ins["X"][tuple(slice(o, o + n) for o, n in zip(offsets, out))])}


def crop_grad(ins, attrs):
    x = ins["X"]
    offsets, out = crop_geometry(ins, attrs)
    dx = np.zeros(x.shape, dtype=x.dtype)
    dx[tuple(slice(o, o + n) for o, n in zip(offsets, out))] = ins["Out@GRAD"]
    return {"X@GRAD": dx}


def crop_tensor_attrs(ins, attrs):
    """crop_tensor's attributes as its kernel reads them: a size <= 0 of the shape attribute is -1 (X's dim
    less the offset), as Fluid's run-time shape inference leaves it; a Shape / ShapeTensor's are as given."""
    if "Shape" in ins or ins.get("ShapeTensor"):
        return attrs
    return dict(attrs, shape=[n if n > 0 else -1 for n in attrs["shape"]])


def crop_tensor(ins, attrs):
    return crop(ins, crop_tensor_attrs(ins, attrs))


def crop_tensor_grad(ins, attrs):
    return crop_grad(ins, crop_tensor_attrs(ins, attrs))
