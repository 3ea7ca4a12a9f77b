"""The image family's geometry, shared by the kernels of both devices: the permutation ops' views, a resize's
sizes, source ratio and taps (float32 where Fluid computes in float32), affine_grid's size and base grid,
grid_sampler's unnormalized coordinates."""

import numpy as np

from ..base.errors import PeError

_F = np.float32


def permutation(op, x_shape, attrs):
    """(X seen with this shape, the transpose applied to it, Out's shape) for the permutation ops."""
    n, c, h, w = x_shape
    if op == "pixel_shuffle":
        r = attrs["upscale_factor"]
        return (n, c // (r * r), r, r, h, w), (0, 1, 4, 2, 5, 3), (n, c // (r * r), h * r, w * r)
    if op == "space_to_depth":
        b = attrs["blocksize"]
        return (n, b, b, c // (b * b), h, w), (0, 3, 4, 1, 5, 2), (n, c * b * b, h // b, w // b)
    g = attrs["group"]
    return (n, g, c // g, h, w), (0, 2, 1, 3, 4), (n, c, h, w)


def out_size(x_shape, attrs, ins, to_host=np.asarray):
    """(input sizes, output sizes, scales) of the spatial dims (H, W or D, H, W) as Fluid picks them:
    OutSize, else scale > 0 (int(in * scale) in float32), else out_d / out_h / out_w. A v2 op (its
    `scale` a list) takes SizeTensor first, then Scale or `scale`, then OutSize, and returns its scales
    (> 0 where given) for ``taps``; a v1 op (Fluid 1.8's) the same, its Scale one value, its ratio
    ignoring the scale (0)."""
    rank = len(x_shape)
    axes = range(2, rank) if attrs["data_layout"] == "NCHW" else range(1, rank - 1)
    sizes = [x_shape[a] for a in axes]
    n, keys = len(sizes), ("out_h", "out_w") if rank == 4 else ("out_d", "out_h", "out_w")
    v2 = isinstance(attrs["scale"], list)
    scales, ratio_scales = [attrs["scale"]] * n, [0.0] * n
    if v2:
        scales = [float(v) for v in attrs["scale"][:n]] if len(attrs["scale"]) >= n else [0.0] * n
        if ins.get("Scale") is not None:
            given = to_host(ins["Scale"]).reshape(-1)
            scales = [float(given[0])] * n if given.size == 1 else [float(v) for v in given[:n]]
        ratio_scales = scales
    elif ins.get("Scale") is not None:
        scales = [float(to_host(ins["Scale"]).reshape(-1)[0])] * n
    outs = (
        [int(_F(i) * _F(sc)) for i, sc in zip(sizes, scales)]
        if all(sc > 0 for sc in scales)
        else [attrs[k] for k in keys]
    )
    if ins.get("OutSize") is not None:
        outs = [int(v) for v in to_host(ins["OutSize"]).reshape(-1)[:n]]
    if ins.get("SizeTensor"):
        outs, ratio_scales = [int(to_host(t).reshape(-1)[0]) for t in ins["SizeTensor"][:n]], [0.0] * n
    if outs == sizes:
        ratio_scales = [0.0] * n  # the same size: a copy, as Paddle's kernels do
    if min(outs) <= 0:
        raise PeError(
            f"{attrs['interp_method']} resize of X {list(x_shape)}: output size "
            f"{'x'.join(str(m) for m in outs)} must be positive"
        )
    return sizes, outs, ratio_scales


def source_ratio(n_in, n_out, corners, scale):
    """A resize's source ratio along one dim (float32, as Fluid computes it)."""
    if n_out <= 1:
        return _F(0)
    return _F(n_in - 1) / _F(n_out - 1) if corners else _F(1.0 / scale) if scale > 0 else _F(n_in) / _F(n_out)


def taps(n_in, n_out, attrs, scale=0.0):
    """For each output position along one dim: (lo, hi, weight of lo, weight of hi) on the input.
    The source ratio is (in - 1) / (out - 1) with aligned corners, else 1 / scale for a v2 op's scale
    > 0, else in / out."""
    corners, method = attrs["align_corners"], attrs["interp_method"]
    lo, hi = np.arange(n_out, dtype=np.int64), np.arange(n_out, dtype=np.int64)
    w_lo, w_hi = np.ones(n_out, dtype=np.float64), np.zeros(n_out, dtype=np.float64)
    if n_in == n_out and not scale > 0:
        return lo, hi, w_lo, w_hi
    ratio = source_ratio(n_in, n_out, corners, scale)
    half = attrs["align_mode"] == 0 and not corners
    for k in range(n_out):
        if method == "nearest":
            lo[k] = hi[k] = int(ratio * _F(k) + _F(0.5)) if corners else int(ratio * _F(k))
            continue
        lo[k] = max(int(ratio * (_F(k) + _F(0.5)) - _F(0.5)) if half else int(ratio * _F(k)), 0)
        hi[k] = min(lo[k] + 1, n_in - 1)
        src = max(ratio * (_F(k) + _F(0.5)) - _F(0.5), _F(0))
        d_hi = _F(src - _F(lo[k])) if half else _F(ratio * _F(k) - _F(lo[k]))
        w_lo[k], w_hi[k] = _F(1) - d_hi, d_hi
    return lo, hi, w_lo, w_hi


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


def unnormalize(g, size, corners):
    """Grid coordinates in [-1, 1] -> pixel coordinates; also d pixel / d grid."""
    if corners:
        return (g + 1) * ((size - 1) / 2), (size - 1) / 2
    return ((g + 1) * size - 1) / 2, size / 2


def padded_coordinate(p, size, corners, padding_mode):
    """grid_sampler's pixel coordinate ``p`` (an array) after Paddle's padding mode, and d result / d p: 'zeros'
    keeps it (outside X reads 0), 'border' clips it into [0, size - 1], 'reflection' mirrors it about X's edges
    (pixel centres with align_corners, else pixel edges) and then clips it."""
    hi = size - 1
    if padding_mode == "zeros":
        return p, np.ones_like(p)
    if padding_mode == "reflection":
        if corners and hi == 0:
            return np.zeros_like(p), np.zeros_like(p)
        span, shift = (2.0 * hi, 0.0) if corners else (2.0 * size, 0.5)
        q = p + shift
        a = np.abs(q)
        extra = a - np.floor(a / span) * span
        mirrored = extra > span - extra
        p = np.where(mirrored, span - extra, extra) - shift
        slope = np.where(q < 0, -1.0, 1.0) * np.where(mirrored, -1.0, 1.0)
    else:
        slope = np.ones_like(p)
    inside = (p > 0) & (p < hi)
    return np.clip(p, 0, hi), slope * inside
