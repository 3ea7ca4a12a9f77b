"""The image family's geometry, shared by the kernels of both devices: the permutation ops' views, a resize's
sizes, source ratio and taps (float32 where Fluid computes in float32), affine_grid's size and base grid,
grid_sampler's unnormalized coordinates; and the family's meta rules (structured kernels, shapes/structured.py; CPU
out-kernels: kernels/cpu/image.py, image_resize.py and linear_resize.py). A size that a tensor's values give
(a resize's OutSize, SizeTensor or Scale, affine_grid's OutputShape) is -1 in the Meta, its variant ``fresh``: the
out-kernel reads the values on each call."""

import numpy as np

from ..base.errors import PeError
from .conv_pool import unfold_blocks
from .structured import Meta

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


# -- meta rules -------------------------------------------------------------------------------------------------------


def _moves(seen, perm):
    """(X seen, the transpose, the moved shape; Out@GRAD seen moved, the transpose back, X's view's shape)."""
    moved = tuple(seen[p] for p in perm)
    return (seen, perm, moved), (moved, tuple(int(i) for i in np.argsort(perm)), seen)


def permutation_meta(op):
    """pixel_shuffle's, space_to_depth's, shuffle_channel's Out: X's elements moved (``permutation``), one copy;
    ``args``: X's view's shape, the transpose and the moved shape, the buffer seen in it."""

    def meta(attrs, ins, facts):
        x = ins["X"]
        seen, perm, out = permutation(op, x.shape, attrs)
        return Meta({"Out": (out, x.dtype)}, "copy", args=_moves(seen, perm)[0])

    meta.__name__ = f"{op}_meta"
    return meta


def permutation_grad_meta(op):
    """The permutation ops' X@GRAD: Out@GRAD's elements moved back, in X's shape and Out@GRAD's dtype (``args``:
    Out@GRAD's view's shape, the transpose back, X's view's shape)."""

    def meta(attrs, ins, facts):
        x = ins["X"]
        seen, perm, _ = permutation(op, x.shape, attrs)
        return Meta({"X@GRAD": (tuple(x.shape), ins["Out@GRAD"].dtype)}, "copy", args=_moves(seen, perm)[1])

    meta.__name__ = f"{op}_grad_meta"
    return meta


def similarity_focus_meta(attrs, ins, facts):
    """similarity_focus's Out: a 0/1 mask of X's shape and dtype."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "mask")


def _resize_by_tensor(ins):
    return ins.get("OutSize") is not None or bool(ins.get("SizeTensor")) or ins.get("Scale") is not None


def interp_meta(attrs, ins, facts):
    """A resize's Out: X's shape with the spatial dims ``out_size`` picks from the attributes (-1 where OutSize,
    SizeTensor or Scale gives them: their values), X's dtype; the separable maps' numpy form, a fresh variant."""
    x = ins["X"]
    shape, rank = list(x.shape), len(x.shape)
    axes = range(2, rank) if attrs["data_layout"] == "NCHW" else range(1, rank - 1)
    sizes = [-1] * len(axes) if _resize_by_tensor(ins) else out_size(x.shape, attrs, {})[1]
    for axis, size in zip(axes, sizes):
        shape[axis] = size
    return Meta({"Out": (tuple(shape), x.dtype)}, "maps", fresh=True)


def interp_grad_meta(attrs, ins, facts):
    """A resize's X@GRAD: X's shape in Out@GRAD's dtype (the maps' transposes; fresh)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "maps", fresh=True)


def linear_interp_meta(attrs, ins, facts):
    """linear_interp's Out: X [N, C, W] (NHWC: [N, W, C]) with the width from `scale` (v2: its last entry) or out_w
    (-1 where OutSize, SizeTensor or Scale gives it), X's dtype; numpy's gathers, a fresh variant."""
    x = ins["X"]
    nhwc = attrs["data_layout"] == "NHWC"
    if _resize_by_tensor(ins):
        width = -1
    else:
        scale = attrs["scale"]
        scale = (scale[-1] if scale else 0.0) if isinstance(scale, list) else scale
        width = max(int(x.shape[1 if nhwc else 2] * scale) if scale > 0 else attrs["out_w"], 0)
    shape = (x.shape[0], width, x.shape[2]) if nhwc else (x.shape[0], x.shape[1], width)
    return Meta({"Out": (shape, x.dtype)}, "taps", fresh=True)


def linear_interp_grad_meta(attrs, ins, facts):
    """linear_interp's X@GRAD: X's shape in Out@GRAD's dtype (fresh)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "taps", fresh=True)


def affine_grid_meta(attrs, ins, facts):
    """affine_grid's Output [N, H, W, 2] in Theta's dtype, H and W from output_shape (-1 where OutputShape gives
    them); numpy's matmul, a fresh variant."""
    theta = ins["Theta"]
    h, w = (-1, -1) if "OutputShape" in ins else grid_size({}, attrs)
    return Meta({"Output": ((theta.shape[0], h, w, 2), theta.dtype)}, "matmul", fresh=True)


def affine_grid_grad_meta(attrs, ins, facts):
    """affine_grid's Theta@GRAD: Theta's shape and dtype (fresh)."""
    theta = ins["Theta"]
    return Meta({"Theta@GRAD": (tuple(theta.shape), theta.dtype)}, "matmul", fresh=True)


def grid_sampler_meta(attrs, ins, facts):
    """grid_sampler's Output [N, C, H_out, W_out] in X's dtype; the variant its mode ('bilinear': the four
    neighbours' shares added into the buffer, 'nearest': the nearest pixel's value times its inside flag)."""
    x, grid = ins["X"], ins["Grid"]
    return Meta({"Output": ((x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]), x.dtype)}, attrs["mode"])


def grid_sampler_grad_meta(attrs, ins, facts):
    """grid_sampler's X@GRAD and Grid@GRAD in their inputs' shapes and dtypes (bincounts: fresh)."""
    x, grid = ins["X"], ins["Grid"]
    outs = {"X@GRAD": (tuple(x.shape), x.dtype), "Grid@GRAD": (tuple(grid.shape), grid.dtype)}
    return Meta(outs, attrs["mode"], fresh=True)


def fsp_meta(attrs, ins, facts):
    """fsp's Out [N, C1, C2] in X's dtype: matmul and the 1 / (H W) scale written through out= where X and Y share
    their dtype ('out'), else numpy's product cast ('fresh')."""
    x, y = ins["X"], ins["Y"]
    same = x.dtype == y.dtype
    return Meta({"Out": ((x.shape[0], x.shape[1], y.shape[1]), x.dtype)}, "out" if same else "fresh", fresh=not same)


def fsp_grad_meta(attrs, ins, facts):
    """fsp's X@GRAD and Y@GRAD in X's and Y's shapes and dtypes (products cast: fresh)."""
    x, y = ins["X"], ins["Y"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype), "Y@GRAD": (tuple(y.shape), y.dtype)}, "fresh", fresh=True)


def unfold_meta(attrs, ins, facts):
    """unfold's Y [N, C kh kw, L] in X's dtype (L the sliding blocks; numpy's gather of the taps: fresh)."""
    x = ins["X"]
    oh, ow = unfold_blocks(x.shape, attrs)
    kh, kw = attrs["kernel_sizes"]
    return Meta({"Y": ((x.shape[0], x.shape[1] * kh * kw, max(oh, 0) * max(ow, 0)), x.dtype)}, "taps", fresh=True)


def unfold_grad_meta(attrs, ins, facts):
    """unfold's X@GRAD: X's shape in Y@GRAD's dtype (numpy's add.at of the columns: fresh)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Y@GRAD"].dtype)}, "taps", fresh=True)
