"""CPU kernels of the image ops (ops/image.py): numpy.

The permutation ops are one reshape-transpose-reshape each, described by ``permutation(op, x_shape,
attrs)`` (shared with the CUDA kernels).

Resizing: every method is separable: Out = X mapped through one matrix per spatial dim (A @ X @ B^T
for an image), each holding every output position's weights on the input positions (two taps; four for
bicubic), computed in float32 as Fluid computes its ratios and weights; the gradient maps dOut through the transposes.

affine_grid and grid_sampler: ``grid_size``, ``base_grid`` and ``unnormalize`` are shared with the
CUDA kernels. unfold: one strided copy per kernel tap, its gradient one strided add per tap."""

import numpy as np

from ...shapes.conv_pool import unfold_blocks
from ...shapes.image import (
    base_grid,
    grid_size,
    out_size,
    padded_coordinate,
    permutation,
    source_ratio,
    taps,
    unnormalize,
)


def _forward(op):
    def kernel(ins, attrs):
        x = ins["X"]
        seen, perm, out = permutation(op, x.shape, attrs)
        return {"Out": np.ascontiguousarray(x.reshape(seen).transpose(perm)).reshape(out)}

    kernel.__name__ = op
    return kernel


def _backward(op):
    def kernel(ins, attrs):
        x, dout = ins["X"], ins["Out@GRAD"]
        seen, perm, _ = permutation(op, x.shape, attrs)
        moved = dout.reshape(tuple(seen[p] for p in perm))
        return {"X@GRAD": np.ascontiguousarray(moved.transpose(np.argsort(perm))).reshape(x.shape)}

    kernel.__name__ = op + "_grad"
    return kernel


pixel_shuffle, pixel_shuffle_grad = _forward("pixel_shuffle"), _backward("pixel_shuffle")
space_to_depth, space_to_depth_grad = _forward("space_to_depth"), _backward("space_to_depth")
shuffle_channel, shuffle_channel_grad = _forward("shuffle_channel"), _backward("shuffle_channel")


# -- similarity_focus ------------------------------------------------------------------------------


def similarity_focus(ins, attrs):
    x = np.asarray(ins["X"])
    axis = attrs["axis"]
    moved = np.moveaxis(x, axis, 1)  # [N, A, R, C]: the slices are [R, C]
    mask = np.zeros(moved.shape[:1] + moved.shape[2:], dtype=bool)
    rows, cols = moved.shape[2], moved.shape[3]
    for b in range(moved.shape[0]):
        for index in attrs["indexes"]:
            order = np.argsort(-moved[b, index].reshape(-1), kind="stable")
            used_r, used_c, taken = np.zeros(rows, bool), np.zeros(cols, bool), 0
            for flat in order:
                r, c = divmod(int(flat), cols)
                if used_r[r] or used_c[c]:
                    continue
                used_r[r] = used_c[c] = True
                mask[b, r, c] = True
                taken += 1
                if taken == min(rows, cols):
                    break
    out = np.broadcast_to(mask[:, None], moved.shape).astype(x.dtype)
    return {"Out": np.ascontiguousarray(np.moveaxis(out, 1, axis))}


# -- resize: nearest, bilinear, trilinear -----------------------------------------------------------

_F = np.float32


_CUBIC_A = -0.75


def _cubic_weights(t):
    """The four cubic-convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from a source at t in [0, 1)."""

    def near(x):
        return ((_CUBIC_A + 2) * x - (_CUBIC_A + 3)) * x * x + 1

    def far(x):
        return ((_CUBIC_A * x - 5 * _CUBIC_A) * x + 8 * _CUBIC_A) * x - 4 * _CUBIC_A

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def cubic_weights(n_in, n_out, attrs, scale=0.0):
    """bicubic: the [n_out, n_in] matrix of each output position's four taps around its source
    (ratio * k with aligned corners, else ratio * (k + 0.5) - 0.5), indices clamped to the input."""
    if n_in == n_out and not scale > 0:
        return np.eye(n_out)
    corners = attrs["align_corners"]
    ratio = source_ratio(n_in, n_out, corners, scale)
    k = np.arange(n_out, dtype=_F)
    src = ratio * k if corners else ratio * (k + _F(0.5)) - _F(0.5)
    base = np.floor(src).astype(np.int64)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    for tap, wt in enumerate(_cubic_weights((src - base).astype(np.float64))):
        np.add.at(m, (np.arange(n_out), np.clip(base - 1 + tap, 0, n_in - 1)), wt)
    return m


def weights(n_in, n_out, attrs, scale=0.0):
    """The [n_out, n_in] interpolation matrix along one dim."""
    if attrs["interp_method"] == "bicubic":
        return cubic_weights(n_in, n_out, attrs, scale)
    lo, hi, w_lo, w_hi = taps(n_in, n_out, attrs, scale)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    np.add.at(m, (np.arange(n_out), lo), w_lo)
    np.add.at(m, (np.arange(n_out), hi), w_hi)
    return m


def _maps(x_shape, ins, attrs):
    sizes_in, sizes_out, scales = out_size(x_shape, attrs, ins)
    return [weights(n, m, attrs, sc) for n, m, sc in zip(sizes_in, sizes_out, scales)]


def _channels_first(a, attrs):
    return np.moveaxis(a, a.ndim - 1, 1) if attrs["data_layout"] != "NCHW" else a


def _back(a, attrs):
    return np.ascontiguousarray(np.moveaxis(a, 1, a.ndim - 1) if attrs["data_layout"] != "NCHW" else a)


def _along(a, mats):
    """``a`` (channels first) with each spatial dim k mapped through mats[k] ([new, old])."""
    for k, m in enumerate(mats):
        a = np.moveaxis(np.tensordot(m.astype(a.dtype), a, axes=([1], [2 + k])), 0, 2 + k)
    return a


def interp(ins, attrs):
    """The resize; integer X (uint8 images) is interpolated in float32 and truncated back, as Fluid's
    kernels (and pe's CUDA kernel) assign the weighted sum to an integer output."""
    x = ins["X"]
    a = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float32)
    out = _back(_along(_channels_first(a, attrs), _maps(x.shape, ins, attrs)), attrs)
    return {"Out": out if out.dtype == x.dtype else out.astype(x.dtype)}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    mats = [m.T for m in _maps(x.shape, ins, attrs)]
    return {"X@GRAD": _back(_along(_channels_first(dout, attrs), mats), attrs)}


# -- affine_grid, grid_sampler -----------------------------------------------------------------------


def affine_grid(ins, attrs):
    theta = ins["Theta"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    out = np.matmul(base[None], theta.transpose(0, 2, 1))  # [N, H*W, 2]
    return {"Output": out.reshape(theta.shape[0], h, w, 2)}


def affine_grid_grad(ins, attrs):
    theta, dout = ins["Theta"], ins["Output@GRAD"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    dtheta = np.matmul(dout.reshape(theta.shape[0], h * w, 2).transpose(0, 2, 1), base[None])
    return {"Theta@GRAD": dtheta.astype(theta.dtype, copy=False)}


# -- grid_sampler ---------------------------------------------------------------------------------


def _points(x_shape, grid, attrs):
    """Each grid point's source in pixels after the padding mode: (px, py), and d px / d grid, d py / d grid."""
    h, w = x_shape[2], x_shape[3]
    corners, mode = attrs["align_corners"], attrs["padding_mode"]
    (px, sx), (py, sy) = (unnormalize(grid[..., i], n, corners) for i, n in ((0, w), (1, h)))
    (px, dx), (py, dy) = (padded_coordinate(p, n, corners, mode) for p, n in ((px, w), (py, h)))
    return px, py, dx * sx, dy * sy


def _taps(px, py):
    """The top-left neighbour of each point and the point's fractional position (dx, dy) from it."""
    x0, y0 = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
    return x0, y0, px - x0, py - y0


def _corners(x0, y0, h, w):
    for oy, ox in ((0, 0), (1, 0), (0, 1), (1, 1)):
        yy, xx = y0 + oy, x0 + ox
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        yield oy, ox, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1), inside


def _nearest(px, py, h, w):
    """The pixel nearest each point (ties away from 0, as std::round) and whether it lies inside X."""
    xx, yy = (np.sign(p) * np.floor(np.abs(p) + 0.5) for p in (px, py))
    inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
    return np.clip(yy, 0, h - 1).astype(np.int64), np.clip(xx, 0, w - 1).astype(np.int64), inside


def _gather(x, yy, xx):
    """X at each grid point's (yy, xx): [N, C, Ho, Wo]."""
    n = np.arange(x.shape[0])[:, None, None]
    return x[n, :, yy, xx].transpose(0, 3, 1, 2)


def grid_sampler(ins, attrs):
    x, grid = ins["X"], ins["Grid"]
    px, py, _, _ = _points(x.shape, grid, attrs)
    if attrs["mode"] == "nearest":
        yy, xx, inside = _nearest(px, py, x.shape[2], x.shape[3])
        return {"Output": (_gather(x, yy, xx) * inside[:, None]).astype(x.dtype, copy=False)}
    x0, y0, fx, fy = _taps(px, py)
    out = np.zeros((x.shape[0], x.shape[1]) + grid.shape[1:3], dtype=x.dtype)
    for oy, ox, yy, xx, inside in _corners(x0, y0, x.shape[2], x.shape[3]):
        wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy) * inside
        out += _gather(x, yy, xx) * wt[:, None]
    return {"Output": out}


def _plane_index(x, yy, xx):
    n, c, h, w = x.shape
    plane = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * (h * w)  # [N, C]
    return plane[:, :, None, None] + (yy * w + xx)[:, None]


def grid_sampler_grad(ins, attrs):
    """X's gradient: each output's share added to its neighbours (one bincount over them all; nearest: to its
    nearest pixel, Grid's gradient then 0); Grid's: the bilinear weights' derivatives times the neighbours'
    values, summed over channels, times the padding's slope."""
    x, grid, dout = ins["X"], ins["Grid"], ins["Output@GRAD"]
    h, w = x.shape[2:]
    px, py, sx, sy = _points(x.shape, grid, attrs)
    if attrs["mode"] == "nearest":
        yy, xx, inside = _nearest(px, py, h, w)
        dx = np.bincount(_plane_index(x, yy, xx).reshape(-1), (dout * inside[:, None]).reshape(-1), x.size)
        return {"X@GRAD": dx.reshape(x.shape).astype(x.dtype), "Grid@GRAD": np.zeros_like(grid)}
    x0, y0, fx, fy = _taps(px, py)
    dpx, dpy = np.zeros(grid.shape[:3]), np.zeros(grid.shape[:3])
    index, shares = [], []
    for oy, ox, yy, xx, inside in _corners(x0, y0, h, w):
        wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy) * inside
        index.append(_plane_index(x, yy, xx))
        shares.append(dout * wt[:, None])
        v = (_gather(x, yy, xx) * dout).sum(axis=1) * inside  # [N, Ho, Wo]
        dpx += v * (fy if oy else 1 - fy) * (1 if ox else -1)
        dpy += v * (fx if ox else 1 - fx) * (1 if oy else -1)
    dx = np.bincount(
        np.concatenate([i.reshape(-1) for i in index]),
        weights=np.concatenate([s.reshape(-1) for s in shares]),
        minlength=x.size,
    )
    dgrid = np.stack([dpx * sx, dpy * sy], axis=-1).astype(grid.dtype)
    return {"X@GRAD": dx.reshape(x.shape).astype(x.dtype), "Grid@GRAD": dgrid}


# -- unfold (im2col) ---------------------------------------------------------------------------------


def _unfold_taps(x_shape, attrs):
    """(rows [kh, out_h], columns [kw, out_w]): the X row and column each kernel tap reads for each block, as
    Fluid's im2col reads them whatever the paddings' and dilations' signs (o * stride - padding + tap *
    dilation); X's size (a zero row or column appended) where that falls outside X."""
    oh, ow = unfold_blocks(x_shape, attrs)
    (kh, kw), (sh, sw), (dh, dw) = attrs["kernel_sizes"], attrs["strides"], attrs["dilations"]
    pu, pl = attrs["paddings"][:2]
    h, w = x_shape[2:]
    rows = np.arange(oh)[None, :] * sh - pu + np.arange(kh)[:, None] * dh
    cols = np.arange(ow)[None, :] * sw - pl + np.arange(kw)[:, None] * dw
    return np.where((rows >= 0) & (rows < h), rows, h), np.where((cols >= 0) & (cols < w), cols, w)


def _unfold_at(rows, cols):
    """The index of the taps' elements [N, C, kh, kw, out_h, out_w] in the zero-extended X."""
    return (slice(None), slice(None), rows[:, None, :, None], cols[None, :, None, :])


def unfold(ins, attrs):
    x = np.asarray(ins["X"])
    n, c = x.shape[:2]
    rows, cols = _unfold_taps(x.shape, attrs)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)))
    return {"Y": np.ascontiguousarray(padded[_unfold_at(rows, cols)]).reshape(n, c * rows.shape[0] * cols.shape[0], -1)}


def unfold_grad(ins, attrs):
    x, dy = ins["X"], np.asarray(ins["Y@GRAD"])
    n, c, h, w = x.shape
    rows, cols = _unfold_taps(x.shape, attrs)
    dxp = np.zeros((n, c, h + 1, w + 1), dtype=dy.dtype)
    np.add.at(dxp, _unfold_at(rows, cols), dy.reshape(n, c, rows.shape[0], cols.shape[0], rows.shape[1], cols.shape[1]))
    return {"X@GRAD": np.ascontiguousarray(dxp[:, :, :h, :w])}


# -- fsp: Out[n] = X[n] (as [C1, H*W]) @ Y[n] (as [C2, H*W])^T / (H * W) ----------------------------------


def fsp(ins, attrs):
    x, y = ins["X"], ins["Y"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    xm, ym = x.reshape(n, x.shape[1], hw), y.reshape(n, y.shape[1], hw)
    return {"Out": (np.matmul(xm, ym.transpose(0, 2, 1)) * x.dtype.type(1.0 / hw)).astype(x.dtype, copy=False)}


def fsp_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    scale = x.dtype.type(1.0 / hw)
    dx = np.matmul(dout, y.reshape(n, y.shape[1], hw)) * scale
    dy = np.matmul(dout.transpose(0, 2, 1), x.reshape(n, x.shape[1], hw)) * scale
    return {
        "X@GRAD": dx.reshape(x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": dy.reshape(y.shape).astype(y.dtype, copy=False),
    }
