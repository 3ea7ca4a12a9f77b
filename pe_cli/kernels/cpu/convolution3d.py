"""CPU kernels of ops/convolution3d.py (NCDHW; NDHWC is transposed around them, kernels/layout.py). A
convolution is a sum over the filter's taps: for each tap (kd, kh, kw) the strided, dilated window
of the padded input it reads, contracted with that tap's [M, C/groups] filter matrix (a GEMM per tap
and group, numpy's einsum). The input gradient spreads each tap's product back into its window; the
filter gradient contracts the window with the output gradient. conv3d_transpose is the input
gradient of conv3d, so its kernels are these three with the roles swapped."""
import itertools

import numpy as np

from ...base.shapes import conv_paddings


def _geometry(x_shape, w_shape, attrs):
    return conv_paddings(attrs["paddings"], attrs["padding_algorithm"], list(x_shape[2:]), list(w_shape[2:]),
                         attrs["strides"], attrs["dilations"])


def _windows(ksize, dil, strides, out):
    """(tap, slices of the padded input that tap reads for every output position)."""
    for tap in itertools.product(*(range(k) for k in ksize)):
        yield tap, tuple(slice(t * d, t * d + s * (o - 1) + 1, s) for t, d, s, o in zip(tap, dil, strides, out))


def _groups(c, m, groups):
    cg, mg = c // groups, m // groups
    return [(slice(g * cg, (g + 1) * cg), slice(g * mg, (g + 1) * mg)) for g in range(groups)]


def _pad(x, pads):
    return np.pad(x, [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(x.ndim - 2)])


def conv_forward(x, w, strides, pads, dil, groups):
    """Output [N, M, *out] of input ``x`` [N, C, *in] and filter ``w`` [M, C/groups, *k]."""
    xp = _pad(x, pads)
    out = [(xp.shape[2 + i] - (dil[i] * (w.shape[2 + i] - 1) + 1)) // strides[i] + 1 for i in range(x.ndim - 2)]
    y = np.zeros((x.shape[0], w.shape[0]) + tuple(out), dtype=x.dtype)
    for xs, ms in _groups(x.shape[1], w.shape[0], groups):
        for tap, win in _windows(w.shape[2:], dil, strides, out):
            y[:, ms] += np.einsum("nc...,mc->nm...", xp[(slice(None), xs) + win], w[(ms, slice(None)) + tap])
    return y


def conv_grad_input(dy, w, x_shape, strides, pads, dil, groups):
    """The gradient [N, C, *in] (``x_shape``) of conv_forward's input, from its output's ``dy``."""
    padded = tuple(x_shape[:2]) + tuple(x_shape[2 + i] + pads[2 * i] + pads[2 * i + 1] for i in range(len(x_shape) - 2))
    dxp = np.zeros(padded, dtype=dy.dtype)
    for xs, ms in _groups(x_shape[1], w.shape[0], groups):
        for tap, win in _windows(w.shape[2:], dil, strides, dy.shape[2:]):
            dxp[(slice(None), xs) + win] += np.einsum("nm...,mc->nc...", dy[:, ms], w[(ms, slice(None)) + tap])
    crop = tuple(slice(pads[2 * i], pads[2 * i] + x_shape[2 + i]) for i in range(len(x_shape) - 2))
    return np.ascontiguousarray(dxp[(slice(None), slice(None)) + crop])


def conv_grad_filter(x, dy, w_shape, strides, pads, dil, groups):
    """The gradient [M, C/groups, *k] (``w_shape``) of conv_forward's filter."""
    xp = _pad(x, pads)
    dw = np.zeros(w_shape, dtype=dy.dtype)
    axes = [0] + list(range(2, dy.ndim))       # the batch and every output position
    for xs, ms in _groups(x.shape[1], w_shape[0], groups):
        for tap, win in _windows(w_shape[2:], dil, strides, dy.shape[2:]):
            dw[(ms, slice(None)) + tap] = np.tensordot(dy[:, ms], xp[(slice(None), xs) + win], axes=(axes, axes))
    return dw


def conv3d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    pads, dil = _geometry(x.shape, w.shape, attrs)
    return {"Output": conv_forward(x, w, attrs["strides"], pads, dil, attrs["groups"])}


def conv3d_grad(ins, attrs):
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    pads, dil = _geometry(x.shape, w.shape, attrs)
    wanted, outs = attrs.get("_outputs", {"Input@GRAD", "Filter@GRAD"}), {}
    if "Input@GRAD" in wanted:
        outs["Input@GRAD"] = conv_grad_input(dy, w, x.shape, attrs["strides"], pads, dil, attrs["groups"])
    if "Filter@GRAD" in wanted:
        outs["Filter@GRAD"] = conv_grad_filter(x, dy, w.shape, attrs["strides"], pads, dil, attrs["groups"])
    return outs


def transpose_out_shape(x, w, attrs, pads, dil):
    """conv3d_transpose's Output shape: output_size where given, else the least size."""
    sizes = list(attrs.get("output_size") or [])
    least = [(x.shape[2 + i] - 1) * attrs["strides"][i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w.shape[2 + i] - 1)
             + 1 for i in range(x.ndim - 2)]
    return (x.shape[0], w.shape[1] * attrs["groups"]) + tuple(sizes or least)


def conv3d_transpose(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    pads, dil = _geometry(x.shape, w.shape, attrs)
    shape = transpose_out_shape(x, w, attrs, pads, dil)
    return {"Output": conv_grad_input(x, w, shape, attrs["strides"], pads, dil, attrs["groups"])}


def conv3d_transpose_grad(ins, attrs):
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    pads, dil = _geometry(x.shape, w.shape, attrs)
    wanted, outs = attrs.get("_outputs", {"Input@GRAD", "Filter@GRAD"}), {}
    if "Input@GRAD" in wanted:
        outs["Input@GRAD"] = conv_forward(dy, w, attrs["strides"], pads, dil, attrs["groups"])
    if "Filter@GRAD" in wanted:
        outs["Filter@GRAD"] = conv_grad_filter(dy, x, w.shape, attrs["strides"], pads, dil, attrs["groups"])
    return outs
