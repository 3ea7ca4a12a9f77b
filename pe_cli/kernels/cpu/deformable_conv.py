"""Kernels of ops/deformable_conv.py: a deformable im2col (bilinear samples at the offset taps, numpy
over all taps at once), then the grouped product with the filter; the gradient runs the same
steps back (the input's part one bincount). Shared with the CUDA kernels, which run it on the host."""
import numpy as np

from ...shapes import conv_out_size


def _geometry(x_shape, w_shape, attrs):
    n, c, h, w = x_shape
    kh, kw = w_shape[2], w_shape[3]
    ho, wo = (conv_out_size((h, w)[i], (kh, kw)[i], attrs["paddings"][i], attrs["paddings"][i], attrs["strides"][i],
                            attrs["dilations"][i]) for i in range(2))
    return n, c, h, w, kh, kw, ho, wo


def _taps(x_shape, w_shape, offset, attrs):
    """Sampling positions [N, dg, kh, kw, Ho, Wo] (rows, columns) and the four corners' data."""
    n, c, h, w, kh, kw, ho, wo = _geometry(x_shape, w_shape, attrs)
    dg = attrs["deformable_groups"]
    off = offset.reshape(n, dg, kh, kw, 2, ho, wo)
    sh, sw = attrs["strides"]
    ph, pw = attrs["paddings"]
    dh, dw = attrs["dilations"]
    base_y = (np.arange(ho) * sh - ph)[None, :, None] + (np.arange(kh) * dh)[:, None, None]          # [kh, Ho, 1]
    base_x = (np.arange(wo) * sw - pw)[None, None, :] + (np.arange(kw) * dw)[:, None, None]          # [kw, 1, Wo]
    py = base_y[None, None, :, None] + off[:, :, :, :, 0]
    px = base_x[None, None, None, :] + off[:, :, :, :, 1]
    y0, x0 = np.floor(py).astype(np.int64), np.floor(px).astype(np.int64)
    fy, fx = py - y0, px - x0
    inside = (py > -1) & (py < h) & (px > -1) & (px < w)
    corners = []
    for oy, ox in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = y0 + oy, x0 + ox
        ok = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        wt = (fy if oy else 1 - fy) * (fx if ox else 1 - fx)
        dwy = (1 if oy else -1) * (fx if ox else 1 - fx)          # d wt / d y
        dwx = (1 if ox else -1) * (fy if oy else 1 - fy)          # d wt / d x
        corners.append((np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1), ok, wt, dwy, dwx))
    return corners


def _gather(x, dg, index):
    """x [N, C, H, W] at ``index`` [N, dg, K...] per channel of each deformable group: [N, dg, Cg, K...]."""
    n, c = x.shape[:2]
    flat = x.reshape(n, dg, c // dg, -1)
    idx = index.reshape(n, dg, 1, -1)
    return np.take_along_axis(flat, np.broadcast_to(idx, (n, dg, c // dg, idx.shape[-1])), axis=3)


def _samples(x, w_shape, offset, attrs):
    """(S [N, dg, Cg, K*L]: the bilinear samples, the corners)."""
    dg = attrs["deformable_groups"]
    corners = _taps(x.shape, w_shape, offset, attrs)
    s = 0
    for index, ok, wt, _, _ in corners:
        s = s + _gather(x, dg, index) * (wt * ok).reshape(x.shape[0], dg, 1, -1)
    return s, corners


def _grouped(cols, weight, groups):
    """Output [N, M, L] = per group, Filter [M/G, (C/G) K] @ cols [(C/G) K, L]."""
    n, rows, length = cols.shape
    m = weight.shape[0]
    wg = weight.reshape(groups, m // groups, -1)
    cg = cols.reshape(n, groups, rows // groups, length)
    return np.einsum("gmr,ngrl->ngml", wg, cg).reshape(n, m, length)


def deformable_conv(ins, attrs):
    x, weight, offset = ins["Input"], ins["Filter"], ins["Offset"]
    n, c, h, w, kh, kw, ho, wo = _geometry(x.shape, weight.shape, attrs)
    dg = attrs["deformable_groups"]
    s, _ = _samples(x, weight.shape, offset, attrs)
    if "Mask" in ins:
        s = s * ins["Mask"].reshape(n, dg, 1, -1)
    cols = s.reshape(n, c * kh * kw, ho * wo)                   # rows (c, i, j), as Filter's
    out = _grouped(cols, weight, attrs["groups"])
    return {"Output": out.reshape(n, weight.shape[0], ho, wo).astype(x.dtype)}


def deformable_conv_grad(ins, attrs):
    x, weight, offset, dout = ins["Input"], ins["Filter"], ins["Offset"], ins["Output@GRAD"]
    n, c, h, w, kh, kw, ho, wo = _geometry(x.shape, weight.shape, attrs)
    dg, groups, m = attrs["deformable_groups"], attrs["groups"], weight.shape[0]
    s, corners = _samples(x, weight.shape, offset, attrs)
    mask = ins["Mask"].reshape(n, dg, 1, -1) if "Mask" in ins else 1.0
    cols = (s * mask).reshape(n, groups, c * kh * kw // groups, ho * wo)
    d = dout.reshape(n, groups, m // groups, ho * wo)
    wg = weight.reshape(groups, m // groups, -1)
    grads = {"Filter@GRAD": np.einsum("ngml,ngrl->gmr", d, cols).reshape(weight.shape).astype(weight.dtype)}
    dcols = np.einsum("gmr,ngml->ngrl", wg, d).reshape(n, dg, c // dg, -1)        # d loss / d (mask * S)
    if "Mask" in ins:
        grads["Mask@GRAD"] = (dcols * s).sum(axis=2).reshape(ins["Mask"].shape).astype(x.dtype)
    ds = dcols * mask                                                              # d loss / d S
    dx = np.zeros(x.size)
    dy_off, dx_off = 0, 0
    chan = (np.arange(n)[:, None, None] * c + np.arange(c).reshape(dg, c // dg)[None]) * (h * w)   # [N, dg, Cg]
    for index, ok, wt, dwy, dwx in corners:
        v = _gather(x, dg, index)
        okr = ok.reshape(n, dg, 1, -1)
        flat = chan[..., None] + index.reshape(n, dg, 1, -1)
        dx += np.bincount(flat.reshape(-1), weights=(ds * wt.reshape(n, dg, 1, -1) * okr).reshape(-1),
                          minlength=x.size)
        dy_off = dy_off + (ds * v * okr).sum(axis=2) * dwy.reshape(n, dg, -1)
        dx_off = dx_off + (ds * v * okr).sum(axis=2) * dwx.reshape(n, dg, -1)
    grads["Input@GRAD"] = dx.reshape(x.shape).astype(x.dtype)
    doff = np.stack([dy_off.reshape(n, dg, kh, kw, ho, wo), dx_off.reshape(n, dg, kh, kw, ho, wo)], axis=4)
    grads["Offset@GRAD"] = doff.reshape(offset.shape).astype(offset.dtype)
    return grads
