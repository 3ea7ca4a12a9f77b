"""CPU out-kernels of the image ops (ops/image.py; their meta rules: shapes/image.py): numpy. The resize ops':
image_resize.py.

The permutation ops are one reshape-transpose copy each into the buffer handed, as their rules read ``permutation(op,
x_shape, attrs)`` (shared with the CUDA kernels).

affine_grid and grid_sampler: ``grid_size``, ``base_grid`` and ``unnormalize`` are shared with the
CUDA kernels. unfold: one gather of the kernel taps, its gradient one add of them. Those numpy forms that make a
new array are fresh variants; the kernels by name CUDA runs on the host (grid_sampler, unfold, similarity_focus,
interp and their gradients) are the same two (kernels/structured.adapter)."""

import numpy as np

from ...shapes import image as rules
from ...shapes.conv_pool import unfold_blocks
from ...shapes.image import base_grid, grid_size, padded_coordinate, unnormalize
from ..structured import adapter
from .image_resize import interp, interp_grad  # noqa: F401 -- CUDA's host fallbacks find them here (kernel_of)
from .launches import by_variant


def permutation_out(ins, outs, attrs, meta):
    """The permutation ops' Out: X seen in ``permutation``'s shape, transposed, copied into the buffer seen in the
    transposed shape (``meta.args``)."""
    seen, perm, moved = meta.args
    outs["Out"].reshape(moved)[...] = ins["X"].reshape(seen).transpose(perm)


def permutation_grad_out(ins, outs, attrs, meta):
    """Their X@GRAD: Out@GRAD seen moved, transposed back, copied into the buffer seen in X's view's shape."""
    moved, back, seen = meta.args
    outs["X@GRAD"].reshape(seen)[...] = ins["Out@GRAD"].reshape(moved).transpose(back)


# -- similarity_focus ------------------------------------------------------------------------------


def similarity_focus_out(ins, outs, attrs, meta):
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
    np.moveaxis(outs["Out"], axis, 1)[...] = mask[:, None]


similarity_focus = adapter(rules.similarity_focus_meta, similarity_focus_out, "similarity_focus")


# -- affine_grid, grid_sampler -----------------------------------------------------------------------


def affine_grid_out(ins, outs, attrs, meta):
    """(fresh: numpy's matmul, its size from OutputShape's values where given)"""
    theta = ins["Theta"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    out = np.matmul(base[None], theta.transpose(0, 2, 1))  # [N, H*W, 2]
    outs["Output"] = out.reshape(theta.shape[0], h, w, 2)


def affine_grid_grad_out(ins, outs, attrs, meta):
    theta, dout = ins["Theta"], ins["Output@GRAD"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    dtheta = np.matmul(dout.reshape(theta.shape[0], h * w, 2).transpose(0, 2, 1), base[None])
    outs["Theta@GRAD"] = dtheta.astype(theta.dtype, copy=False)


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


def _sample_nearest(ins, outs, attrs, meta):
    x, grid = ins["X"], ins["Grid"]
    px, py, _, _ = _points(x.shape, grid, attrs)
    yy, xx, inside = _nearest(px, py, x.shape[2], x.shape[3])
    np.multiply(_gather(x, yy, xx), inside[:, None], out=outs["Output"])


def _sample_bilinear(ins, outs, attrs, meta):
    x, grid, out = ins["X"], ins["Grid"], outs["Output"]
    px, py, _, _ = _points(x.shape, grid, attrs)
    x0, y0, fx, fy = _taps(px, py)
    out[...] = 0
    for oy, ox, yy, xx, inside in _corners(x0, y0, x.shape[2], x.shape[3]):
        wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy) * inside
        out += _gather(x, yy, xx) * wt[:, None]


GRID_SAMPLER = by_variant("grid_sampler_out", None, nearest=_sample_nearest, bilinear=_sample_bilinear)
grid_sampler = adapter(rules.grid_sampler_meta, GRID_SAMPLER, "grid_sampler")


def _plane_index(x, yy, xx):
    n, c, h, w = x.shape
    plane = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * (h * w)  # [N, C]
    return plane[:, :, None, None] + (yy * w + xx)[:, None]


def grid_sampler_grad_out(ins, outs, attrs, meta):
    """X's gradient: each output's share added to its neighbours (one bincount over them all; nearest: to its
    nearest pixel, Grid's gradient then 0); Grid's: the bilinear weights' derivatives times the neighbours'
    values, summed over channels, times the padding's slope."""
    x, grid, dout = ins["X"], ins["Grid"], ins["Output@GRAD"]
    h, w = x.shape[2:]
    px, py, sx, sy = _points(x.shape, grid, attrs)
    if attrs["mode"] == "nearest":
        yy, xx, inside = _nearest(px, py, h, w)
        dx = np.bincount(_plane_index(x, yy, xx).reshape(-1), (dout * inside[:, None]).reshape(-1), x.size)
        outs["X@GRAD"], outs["Grid@GRAD"] = dx.reshape(x.shape).astype(x.dtype), np.zeros(grid.shape, grid.dtype)
        return
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
    outs["Grid@GRAD"] = np.stack([dpx * sx, dpy * sy], axis=-1).astype(grid.dtype)
    outs["X@GRAD"] = dx.reshape(x.shape).astype(x.dtype)


grid_sampler_grad = adapter(rules.grid_sampler_grad_meta, grid_sampler_grad_out, "grid_sampler_grad")


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


def unfold_out(ins, outs, attrs, meta):
    x = np.asarray(ins["X"])
    n, c = x.shape[:2]
    rows, cols = _unfold_taps(x.shape, attrs)
    padded = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)))
    taken = np.ascontiguousarray(padded[_unfold_at(rows, cols)])
    outs["Y"] = taken.reshape(n, c * rows.shape[0] * cols.shape[0], -1)


def unfold_grad_out(ins, outs, attrs, meta):
    x, dy = ins["X"], np.asarray(ins["Y@GRAD"])
    n, c, h, w = x.shape
    rows, cols = _unfold_taps(x.shape, attrs)
    dxp = np.zeros((n, c, h + 1, w + 1), dtype=dy.dtype)
    np.add.at(dxp, _unfold_at(rows, cols), dy.reshape(n, c, rows.shape[0], cols.shape[0], rows.shape[1], cols.shape[1]))
    outs["X@GRAD"] = np.ascontiguousarray(dxp[:, :, :h, :w])


unfold = adapter(rules.unfold_meta, unfold_out, "unfold")  # (fold's kernels and CUDA's host fallbacks call these)
unfold_grad = adapter(rules.unfold_grad_meta, unfold_grad_out, "unfold_grad")


# -- fsp: Out[n] = X[n] (as [C1, H*W]) @ Y[n] (as [C2, H*W])^T / (H * W) ----------------------------------


def _fsp(ins, outs, attrs, meta, into=False):
    x, y = ins["X"], ins["Y"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    xm, ym = x.reshape(n, x.shape[1], hw), y.reshape(n, y.shape[1], hw)
    scale = x.dtype.type(1.0 / hw)
    if into:  # (X and Y of one dtype: the product and its scale written through out=)
        out = np.matmul(xm, ym.transpose(0, 2, 1), out=outs["Out"])
        np.multiply(out, scale, out=out)
    else:
        outs["Out"] = (np.matmul(xm, ym.transpose(0, 2, 1)) * scale).astype(x.dtype, copy=False)


FSP = by_variant("fsp_out", None, out=lambda *a: _fsp(*a, into=True), fresh=_fsp)


def fsp_grad_out(ins, outs, attrs, meta):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    n, hw = x.shape[0], x.shape[2] * x.shape[3]
    scale = x.dtype.type(1.0 / hw)
    dx = np.matmul(dout, y.reshape(n, y.shape[1], hw)) * scale
    dy = np.matmul(dout.transpose(0, 2, 1), x.reshape(n, x.shape[1], hw)) * scale
    outs["X@GRAD"] = dx.reshape(x.shape).astype(x.dtype, copy=False)
    outs["Y@GRAD"] = dy.reshape(y.shape).astype(y.dtype, copy=False)
