"""Kernels of ops/resize.py. Every method is separable: Out = X mapped through one matrix per spatial
dim (A @ X @ B^T for an image), each holding every output position's weights on the input positions,
computed in float32 as Fluid computes its ratios and weights; the gradient maps dOut through the
transposes."""
import numpy as np

from ...errors import PeError

_F = np.float32


def out_size(x_shape, attrs, ins, to_host=np.asarray):
    """(input sizes, output sizes, scales) of the spatial dims (H, W or D, H, W) as Fluid picks them:
    OutSize, else scale > 0 (int(in * scale) in float32), else out_d / out_h / out_w. A v2 op (its
    `scale` a list) takes SizeTensor first, then Scale or `scale`, then OutSize, and returns its scales
    (> 0 where given) for ``taps``; a v1 op's ratio ignores its scale (0)."""
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
    outs = [int(_F(i) * _F(sc)) for i, sc in zip(sizes, scales)] if all(sc > 0 for sc in scales) \
        else [attrs[k] for k in keys]
    if ins.get("OutSize") is not None:
        outs = [int(v) for v in to_host(ins["OutSize"]).reshape(-1)[:n]]
    if v2 and ins.get("SizeTensor"):
        outs, ratio_scales = [int(to_host(t).reshape(-1)[0]) for t in ins["SizeTensor"][:n]], [0.0] * n
    if outs == sizes:
        ratio_scales = [0.0] * n             # the same size: a copy, as Paddle's kernels do
    if min(outs) <= 0:
        raise PeError(f"{attrs['interp_method']} resize of X {list(x_shape)}: output size "
                      f"{'x'.join(str(m) for m in outs)} must be positive")
    return sizes, outs, ratio_scales


def taps(n_in, n_out, attrs, scale=0.0):
    """For each output position along one dim: (lo, hi, weight of lo, weight of hi) on the input.
    The source ratio is (in - 1) / (out - 1) with aligned corners, else 1 / scale for a v2 op's scale
    > 0, else in / out."""
    corners, method = attrs["align_corners"], attrs["interp_method"]
    lo, hi = np.arange(n_out, dtype=np.int64), np.arange(n_out, dtype=np.int64)
    w_lo, w_hi = np.ones(n_out, dtype=np.float64), np.zeros(n_out, dtype=np.float64)
    if n_in == n_out and not scale > 0:
        return lo, hi, w_lo, w_hi
    ratio = _F(0)
    if n_out > 1:
        ratio = _F(n_in - 1) / _F(n_out - 1) if corners else _F(1.0 / scale) if scale > 0 else _F(n_in) / _F(n_out)
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


def weights(n_in, n_out, attrs, scale=0.0):
    """The [n_out, n_in] interpolation matrix along one dim."""
    lo, hi, w_lo, w_hi = taps(n_in, n_out, attrs, scale)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    np.add.at(m, (np.arange(n_out), lo), w_lo)
    np.add.at(m, (np.arange(n_out), hi), w_hi)
    return m


def _maps(x_shape, ins, attrs):
    sizes_in, sizes_out, scales = out_size(x_shape, attrs, ins)
    return [weights(n, m, attrs, sc) for n, m, sc in zip(sizes_in, sizes_out, scales)]


def _channels_first(a, attrs):
    return np.moveaxis(a, a.ndim - 1, 1) if attrs["data_layout"] == "NHWC" else a


def _back(a, attrs):
    return np.ascontiguousarray(np.moveaxis(a, 1, a.ndim - 1) if attrs["data_layout"] == "NHWC" else a)


def _along(a, mats):
    """``a`` (channels first) with each spatial dim k mapped through mats[k] ([new, old])."""
    for k, m in enumerate(mats):
        a = np.moveaxis(np.tensordot(m.astype(a.dtype), a, axes=([1], [2 + k])), 0, 2 + k)
    return a


def interp(ins, attrs):
    x = ins["X"]
    return {"Out": _back(_along(_channels_first(x, attrs), _maps(x.shape, ins, attrs)), attrs)}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    mats = [m.T for m in _maps(x.shape, ins, attrs)]
    return {"X@GRAD": _back(_along(_channels_first(dout, attrs), mats), attrs)}
