"""Kernels of ops/resize.py. Both methods are separable: Out = A @ X @ B^T over each image, A and B
holding each output row's (column's) weights on the input rows (columns), computed in float32 as
Fluid computes its ratios and weights; the gradient is A^T @ dOut @ B."""
import numpy as np

from ...errors import PeError

_F = np.float32


def out_size(x_shape, attrs, out_size_values=None):
    """(in_h, in_w, out_h, out_w) as Fluid picks them: OutSize, else scale > 0, else out_h/out_w."""
    h, w = (2, 3) if attrs["data_layout"] == "NCHW" else (1, 2)
    in_h, in_w = x_shape[h], x_shape[w]
    out_h, out_w = attrs["out_h"], attrs["out_w"]
    if attrs["scale"] > 0:
        out_h, out_w = int(in_h * attrs["scale"]), int(in_w * attrs["scale"])
    if out_size_values is not None:
        out_h, out_w = (int(v) for v in np.asarray(out_size_values).reshape(-1)[:2])
    if out_h <= 0 or out_w <= 0:
        raise PeError(f"{attrs['interp_method']} resize of X {list(x_shape)}: output size {out_h}x{out_w} must be "
                      f"positive")
    return in_h, in_w, out_h, out_w


def taps(n_in, n_out, attrs):
    """For each output position along one dim: (lo, hi, weight of lo, weight of hi) on the input."""
    corners, method = attrs["align_corners"], attrs["interp_method"]
    lo, hi = np.arange(n_out, dtype=np.int64), np.arange(n_out, dtype=np.int64)
    w_lo, w_hi = np.ones(n_out, dtype=np.float64), np.zeros(n_out, dtype=np.float64)
    if n_in == n_out:
        return lo, hi, w_lo, w_hi
    ratio = _F(0)
    if n_out > 1:
        ratio = _F(n_in - 1) / _F(n_out - 1) if corners else _F(n_in) / _F(n_out)
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


def weights(n_in, n_out, attrs):
    """The [n_out, n_in] interpolation matrix along one dim."""
    lo, hi, w_lo, w_hi = taps(n_in, n_out, attrs)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    np.add.at(m, (np.arange(n_out), lo), w_lo)
    np.add.at(m, (np.arange(n_out), hi), w_hi)
    return m


def _maps(x_shape, ins, attrs):
    in_h, in_w, out_h, out_w = out_size(x_shape, attrs, ins.get("OutSize"))
    return weights(in_h, out_h, attrs), weights(in_w, out_w, attrs)


def _nchw(a, attrs):
    return np.moveaxis(a, 3, 1) if attrs["data_layout"] == "NHWC" else a


def _back(a, attrs):
    return np.ascontiguousarray(np.moveaxis(a, 1, 3) if attrs["data_layout"] == "NHWC" else a)


def interp(ins, attrs):
    x = ins["X"]
    rows, cols = _maps(x.shape, ins, attrs)
    out = rows.astype(x.dtype) @ _nchw(x, attrs) @ cols.T.astype(x.dtype)
    return {"Out": _back(out, attrs)}


def interp_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, cols = _maps(x.shape, ins, attrs)
    dx = rows.T.astype(x.dtype) @ _nchw(dout, attrs) @ cols.astype(x.dtype)
    return {"X@GRAD": _back(dx, attrs)}
