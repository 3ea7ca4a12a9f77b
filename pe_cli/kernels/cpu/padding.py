"""Kernels of ops/padding.py: numpy, as the other data-movement kernels. pad2d's reflect and edge
modes read through index maps (pad_source), which the CUDA kernels share."""
import numpy as np

from ...errors import PeError
from ...shapes import crop_window


def pad(ins, attrs):
    x, p = ins["X"], attrs["paddings"]
    pairs = [(p[2 * i], p[2 * i + 1]) for i in range(x.ndim)]
    return {"Out": np.pad(x, pairs, constant_values=x.dtype.type(attrs["pad_value"]))}


def pad_grad(ins, attrs):
    x, dout, p = ins["X"], ins["Out@GRAD"], attrs["paddings"]
    window = tuple(slice(p[2 * i], p[2 * i] + n) for i, n in enumerate(x.shape))
    return {"X@GRAD": np.ascontiguousarray(dout[window])}


# -- pad2d ---------------------------------------------------------------------------------------

def pad_source(n, before, after, mode):
    """For each position of a dim of size n padded by (before, after): the position of X it copies,
    or -1 for a constant pad value."""
    pos = np.arange(-before, n + after, dtype=np.int64)
    if mode == "edge":
        return np.clip(pos, 0, n - 1)
    if mode == "reflect":
        if n > 1:
            period = 2 * (n - 1)
            pos = np.abs(pos) % period
            return np.where(pos >= n, period - pos, pos)
        return np.zeros_like(pos)
    return np.where((pos >= 0) & (pos < n), pos, -1)


def pad2d_maps(x_shape, attrs):
    """(rows, cols): pad_source along X's height and width."""
    p, nhwc = attrs["paddings"], attrs["data_format"] == "NHWC"
    h, w = (x_shape[1], x_shape[2]) if nhwc else (x_shape[2], x_shape[3])
    if attrs["mode"] == "reflect" and (max(p[0], p[1]) >= h or max(p[2], p[3]) >= w):
        raise PeError(f"pad2d: reflect padding {list(p)} must be smaller than X's height and width "
                      f"{list(x_shape)}")
    return pad_source(h, p[0], p[1], attrs["mode"]), pad_source(w, p[2], p[3], attrs["mode"])


def _nchw(a, attrs):
    return np.moveaxis(a, 3, 1) if attrs["data_format"] == "NHWC" else a


def _back(a, attrs):
    return np.ascontiguousarray(np.moveaxis(a, 1, 3) if attrs["data_format"] == "NHWC" else a)


def pad2d(ins, attrs):
    x = ins["X"]
    rows, cols = pad2d_maps(x.shape, attrs)
    xc = _nchw(x, attrs)
    out = xc[:, :, np.maximum(rows, 0)][:, :, :, np.maximum(cols, 0)]
    if attrs["mode"] == "constant":
        out[:, :, rows < 0] = attrs["pad_value"]
        out[:, :, :, cols < 0] = attrs["pad_value"]
    return {"Out": _back(out, attrs)}


def pad2d_grad(ins, attrs):
    """The window over X copied, then each padded row (column) added onto the row (column) it
    copies: a loop over the paddings only."""
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, cols = pad2d_maps(x.shape, attrs)
    d = _nchw(dout, attrs)
    top, left = attrs["paddings"][0], attrs["paddings"][2]
    h, w = rows.size - sum(attrs["paddings"][:2]), cols.size - sum(attrs["paddings"][2:])
    by_row = d[:, :, top:top + h].copy()
    for k in np.flatnonzero((np.arange(rows.size) < top) | (np.arange(rows.size) >= top + h)):
        if rows[k] >= 0:
            by_row[:, :, rows[k]] += d[:, :, k]
    dx = by_row[:, :, :, left:left + w].copy()
    for k in np.flatnonzero((np.arange(cols.size) < left) | (np.arange(cols.size) >= left + w)):
        if cols[k] >= 0:
            dx[:, :, :, cols[k]] += by_row[:, :, :, k]
    return {"X@GRAD": _back(dx, attrs)}


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
