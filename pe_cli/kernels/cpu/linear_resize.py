"""CPU out-kernels of pe_cli/ops/linear_resize.py (their meta rules: shapes/image.py): each output column a weighted
pair of input columns, the pairs and weights as Paddle 2.6's LinearInterpolation computes them (float32 positions);
numpy's forms make new arrays: fresh variants, the width read from OutSize, SizeTensor or Scale on each call where
the op has them. The kernels by name (CUDA runs them on the host) are the same two (kernels/structured.adapter)."""

import numpy as np

from ...shapes.image import linear_interp_grad_meta, linear_interp_meta
from ..structured import adapter


def _width(ins, attrs, in_w):
    """(out_w, the scale that sets the ratio, 0 where none)."""
    scale = attrs["scale"]
    scale = (scale[-1] if scale else 0.0) if isinstance(scale, list) else scale
    if ins.get("Scale") is not None:
        scale = float(np.asarray(ins["Scale"]).reshape(-1)[-1])
    out = int(in_w * scale) if scale > 0 else attrs["out_w"]
    if ins.get("OutSize") is not None:
        out = int(np.asarray(ins["OutSize"]).reshape(-1)[-1])
    if ins.get("SizeTensor"):
        out = int(np.asarray(ins["SizeTensor"][-1]).reshape(-1)[0])
    return out, scale if isinstance(attrs["scale"], list) else 0.0


def _weights(in_w, out_w, attrs, scale, v1):
    """(left index, right index, left weight, right weight) per output column."""
    align = attrs["align_corners"]
    if out_w > 1:
        ratio = np.float32((in_w - 1) / (out_w - 1)) if align else np.float32(1 / scale if scale > 0 else in_w / out_w)
    else:
        ratio = np.float32(0)
    flag = attrs["align_mode"] == 0 and not align
    # v2 (phi): positions in float32; v1 (Fluid's kernel): the float32 ratio times the column (+ 0.5) in double,
    # as its C++ promotes it, the source then a float32
    wide = np.float64 if v1 else np.float32
    cols = np.arange(out_w, dtype=wide)
    r, half = wide(ratio), wide(0.5)
    at = r * (cols + half) - half if flag else r * cols
    left = np.maximum(at.astype(np.int64), 0)
    right = np.where(left < in_w - 1, left + 1, left)
    src = np.maximum(r * (cols + half) - half, 0).astype(np.float32)
    d_right = ((src - left) if flag else ((r * cols).astype(np.float32) - left)).astype(np.float32)
    return left, right, np.float32(1) - d_right, d_right


def _ncw(x, attrs):
    return np.swapaxes(x, 1, 2) if attrs["data_layout"] == "NHWC" else x


def _interp(ins, attrs):
    x = _ncw(ins["X"], attrs)
    out_w, scale = _width(ins, attrs, x.shape[2])
    return x, _weights(x.shape[2], out_w, attrs, scale, not isinstance(attrs["scale"], list))


def linear_interp_out(ins, outs, attrs, meta):
    x, (left, right, wl, wr) = _interp(ins, attrs)
    out = x[:, :, left] * wl.astype(x.dtype) + x[:, :, right] * wr.astype(x.dtype)
    outs["Out"] = np.ascontiguousarray(_ncw(out, attrs)).astype(x.dtype, copy=False)


def linear_interp_grad_out(ins, outs, attrs, meta):
    x, (left, right, wl, wr) = _interp(ins, attrs)
    d = _ncw(ins["Out@GRAD"], attrs)
    dx = np.zeros(x.shape, d.dtype)
    np.add.at(dx, (slice(None), slice(None), left), d * wl.astype(d.dtype))
    np.add.at(dx, (slice(None), slice(None), right), d * wr.astype(d.dtype))
    outs["X@GRAD"] = np.ascontiguousarray(_ncw(dx, attrs))


linear_interp_v2 = linear_interp = adapter(linear_interp_meta, linear_interp_out, "linear_interp")
linear_interp_v2_grad = linear_interp_grad = adapter(
    linear_interp_grad_meta, linear_interp_grad_out, "linear_interp_grad"
)
