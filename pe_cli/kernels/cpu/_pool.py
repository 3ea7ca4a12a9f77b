"""numpy's pool2d paths for dtypes numba is not compiled for (pooling.py takes the numba loops for
float32/float64): a loop over kernel or output positions (whichever is fewer) vectorised over the batch
and channels."""

import numpy as np

from ..common import pad


def forward(x, geo, is_max, exclusive):
    """Out [N, C, Ho, Wo]: max or average of each window."""
    xp = pad(x, geo.pads, -np.inf if is_max else 0, geo.extent)
    n, c = x.shape[:2]
    if geo.by_kernel():
        out = None
        for sl in geo.kernel_slices():
            if out is None:
                out = xp[sl].copy()
            elif is_max:
                np.maximum(out, xp[sl], out=out)
            else:
                out += xp[sl]
    else:
        out = np.empty((n, c, geo.ho, geo.wo), dtype=x.dtype)
        reduce = np.max if is_max else np.sum
        for oh, ow, sl in geo.windows():
            out[:, :, oh, ow] = reduce(xp[sl], axis=(2, 3))
    if not is_max:
        out /= np.asarray(geo.counts(x.shape[2], x.shape[3], exclusive), dtype=x.dtype)
    return out


def backward(x, out, dout, geo, is_max, exclusive):
    """X@GRAD [N, C, H, W]."""
    n, c, h, w = x.shape
    t, l = geo.pads[0], geo.pads[2]
    shape = (n, c, max(h + geo.pads[0] + geo.pads[1], geo.extent[0]), max(w + geo.pads[2] + geo.pads[3], geo.extent[1]))
    dxp = np.zeros(shape, dtype=x.dtype)
    if is_max:
        # The gradient goes to the first element of each window equal to the maximum, as in Fluid.
        xp = pad(x, geo.pads, -np.inf, geo.extent)
        if geo.by_kernel():
            taken = np.zeros(out.shape, dtype=bool)
            for sl in geo.kernel_slices():
                hit = (xp[sl] == out) & ~taken
                dxp[sl] += dout * hit
                taken |= hit
        else:
            for oh, ow, sl in geo.windows():
                win = xp[sl].reshape(n, c, geo.kh * geo.kw)  # (not -1: an empty batch has no size to infer)
                first = np.argmax(win == out[:, :, oh, ow, None], axis=-1)
                onehot = np.zeros(win.shape, dtype=x.dtype)
                np.put_along_axis(onehot, first[..., None], dout[:, :, oh, ow, None], axis=-1)
                dxp[sl] += onehot.reshape(n, c, geo.kh, geo.kw)
    else:
        g = dout / np.asarray(geo.counts(h, w, exclusive), dtype=x.dtype)
        if geo.by_kernel():
            for sl in geo.kernel_slices():
                dxp[sl] += g
        else:
            for oh, ow, sl in geo.windows():
                dxp[sl] += g[:, :, oh, ow, None, None]
    return np.ascontiguousarray(dxp[:, :, t : t + h, l : l + w])
