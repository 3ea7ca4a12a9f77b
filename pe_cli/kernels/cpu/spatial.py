"""Kernels of ops/spatial.py: numpy. ``grid_size``, ``base_grid`` and ``unnormalize`` are shared
with the CUDA kernels."""
import numpy as np

from ...errors import PeError


def grid_size(ins, attrs):
    """(H, W) of affine_grid's output: the OutputShape input, else the output_shape attribute."""
    shape = np.asarray(ins["OutputShape"]).reshape(-1).tolist() if "OutputShape" in ins else attrs["output_shape"]
    if len(shape) != 4 or min(shape[2:]) <= 0:
        raise PeError(f"affine_grid: the output shape {list(shape)} must be [N, C, H, W] with H, W > 0")
    return int(shape[2]), int(shape[3])


def _line(n, corners):
    pts = np.linspace(-1.0, 1.0, n) if n > 1 else np.array([-1.0 if corners else 0.0])
    return pts if corners else pts * (n - 1) / n


def base_grid(h, w, corners):
    """[H * W, 3]: (x, y, 1) of each output pixel, row-major."""
    xs, ys = np.meshgrid(_line(w, corners), _line(h, corners))
    return np.stack([xs.reshape(-1), ys.reshape(-1), np.ones(h * w)], axis=1)


def affine_grid(ins, attrs):
    theta = ins["Theta"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    out = np.matmul(base[None], theta.transpose(0, 2, 1))          # [N, H*W, 2]
    return {"Output": out.reshape(theta.shape[0], h, w, 2)}


def affine_grid_grad(ins, attrs):
    theta, dout = ins["Theta"], ins["Output@GRAD"]
    h, w = grid_size(ins, attrs)
    base = base_grid(h, w, attrs["align_corners"]).astype(theta.dtype)
    dtheta = np.matmul(dout.reshape(theta.shape[0], h * w, 2).transpose(0, 2, 1), base[None])
    return {"Theta@GRAD": dtheta.astype(theta.dtype, copy=False)}


# -- grid_sampler ---------------------------------------------------------------------------------

def unnormalize(g, size, corners):
    """Grid coordinates in [-1, 1] -> pixel coordinates; also d pixel / d grid."""
    if corners:
        return (g + 1) * ((size - 1) / 2), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def _taps(x_shape, grid, corners):
    """The four neighbours of each grid point: their (row, col) indices, whether inside X, and the
    point's fractional position (dx, dy) from the top-left one."""
    h, w = x_shape[2], x_shape[3]
    px, _ = unnormalize(grid[..., 0], w, corners)
    py, _ = unnormalize(grid[..., 1], h, corners)
    x0, y0 = np.floor(px).astype(np.int64), np.floor(py).astype(np.int64)
    return x0, y0, px - x0, py - y0


def _corners(x0, y0, h, w):
    for oy, ox in ((0, 0), (1, 0), (0, 1), (1, 1)):
        yy, xx = y0 + oy, x0 + ox
        inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        yield oy, ox, np.clip(yy, 0, h - 1), np.clip(xx, 0, w - 1), inside


def _gather(x, yy, xx):
    """X at each grid point's (yy, xx): [N, C, Ho, Wo]."""
    n = np.arange(x.shape[0])[:, None, None]
    return x[n, :, yy, xx].transpose(0, 3, 1, 2)


def grid_sampler(ins, attrs):
    x, grid = ins["X"], ins["Grid"]
    x0, y0, fx, fy = _taps(x.shape, grid, attrs["align_corners"])
    out = np.zeros((x.shape[0], x.shape[1]) + grid.shape[1:3], dtype=x.dtype)
    for oy, ox, yy, xx, inside in _corners(x0, y0, x.shape[2], x.shape[3]):
        wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy) * inside
        out += _gather(x, yy, xx) * wt[:, None]
    return {"Output": out}


def grid_sampler_grad(ins, attrs):
    """X's gradient: each output's share added to its four neighbours (one bincount over them all);
    Grid's: the bilinear weights' derivatives times the neighbours' values, summed over channels."""
    x, grid, dout = ins["X"], ins["Grid"], ins["Output@GRAD"]
    corners = attrs["align_corners"]
    n, c, h, w = x.shape
    x0, y0, fx, fy = _taps(x.shape, grid, corners)
    dpx, dpy = np.zeros(grid.shape[:3]), np.zeros(grid.shape[:3])
    plane = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * (h * w)         # [N, C]
    index, shares = [], []
    for oy, ox, yy, xx, inside in _corners(x0, y0, h, w):
        wt = (fx if ox else 1 - fx) * (fy if oy else 1 - fy) * inside
        index.append(plane[:, :, None, None] + (yy * w + xx)[:, None])
        shares.append(dout * wt[:, None])
        v = (_gather(x, yy, xx) * dout).sum(axis=1) * inside            # [N, Ho, Wo]
        dpx += v * (fy if oy else 1 - fy) * (1 if ox else -1)
        dpy += v * (fx if ox else 1 - fx) * (1 if oy else -1)
    dx = np.bincount(np.concatenate([i.reshape(-1) for i in index]),
                     weights=np.concatenate([s.reshape(-1) for s in shares]), minlength=x.size)
    _, sx = unnormalize(0, w, corners)
    _, sy = unnormalize(0, h, corners)
    dgrid = np.stack([dpx * sx, dpy * sy], axis=-1).astype(grid.dtype)
    return {"X@GRAD": dx.reshape(x.shape).astype(x.dtype), "Grid@GRAD": dgrid}
