"""CPU out-kernels of the resize ops (ops/image_resize.py; their meta rules: shapes/image.py): every method is
separable: Out = X mapped through one matrix per spatial dim (A @ X @ B^T for an image), each holding every output
position's weights on the input positions (two taps; four for bicubic), computed in float32 as Fluid computes its
ratios and weights; the gradient maps dOut through the transposes. numpy's tensordot makes a new array: fresh
variants, the sizes read from OutSize, SizeTensor or Scale on each call where the op has them. ``interp`` and
``interp_grad``: the same two as kernels by name (kernels/structured.adapter), which CUDA runs on the host."""

import numpy as np

from ...shapes import image as rules
from ...shapes.image import out_size, source_ratio, taps
from ..structured import adapter

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


def interp_out(ins, outs, attrs, meta):
    """The resize (its sizes from the tensors' values where given); integer X (uint8 images) is interpolated in
    float32 and truncated back, as Fluid's kernels (and pe's CUDA kernel) assign the weighted sum to an integer
    output. A fresh variant: the new array numpy made is Out."""
    x = ins["X"]
    a = x if np.issubdtype(x.dtype, np.floating) else x.astype(np.float32)
    out = _back(_along(_channels_first(a, attrs), _maps(x.shape, ins, attrs)), attrs)
    outs["Out"] = out if out.dtype == x.dtype else out.astype(x.dtype)


def interp_grad_out(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    mats = [m.T for m in _maps(x.shape, ins, attrs)]
    outs["X@GRAD"] = _back(_along(_channels_first(dout, attrs), mats), attrs)


interp = adapter(rules.interp_meta, interp_out, "interp")  # (CUDA runs bicubic's on the host by these names)
interp_grad = adapter(rules.interp_grad_meta, interp_grad_out, "interp_grad")
