"""The padding family's geometry, shared by the kernels of both devices: pad2d's and pad3d's sizes and the
position of X each padded position copies, crop's and crop_tensor's window."""

import numpy as np

from ..base.dims import fmt_shape
from ..base.errors import PeError
from .manipulation import crop_window


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
