"""CPU kernels of ops/convolution3d.py (NCDHW; NDHWC is transposed around them, kernels/layout.py). A
convolution is a sum over the filter's taps: for each tap (kd, kh, kw) the strided, dilated window
of the padded input it reads, contracted with that tap's [M, C/groups] filter matrix (a GEMM per tap
and group, numpy's einsum). The input gradient spreads each tap's product back into its window; the
filter gradient contracts the window with the output gradient. conv3d_transpose is the input
gradient of conv3d, so its kernels are these three with the roles swapped."""

import itertools

import numpy as np

from ...shapes.conv_pool import conv_out_size, conv_paddings
from ...shapes import conv_regular as _conv_regular
from ..context import NO_CONTEXT


def _geometry(x_shape, w_shape, attrs):
    return conv_paddings(
        attrs["paddings"],
        attrs["padding_algorithm"],
        list(x_shape[2:]),
        list(w_shape[2:]),
        attrs["strides"],
        attrs["dilations"],
    )


class _Plan:
    """A convolution of input spatial sizes ``in_sizes`` to ``outs`` as a regular one (shapes/conv_regular.py;
    itself when it is one): the input cropped, the filter folded, paddings and dilations >= 0 and 1."""

    def __init__(self, in_sizes, w, attrs, pads, dil, outs):
        self.reg = _conv_regular.plan(list(in_sizes), list(w.shape[2:]), attrs["strides"], pads, dil, outs)
        self.w = self.reg.filter(w) if self.reg else w
        self.pads, self.dil = (self.reg.pads, self.reg.dils) if self.reg else (pads, dil)

    def input(self, x):
        return self.reg.input(x) if self.reg else x

    def shape(self, x_shape):
        """The input shape the regular convolution sees."""
        return tuple(x_shape[:2]) + tuple(hi - lo for lo, hi in self.reg.windows) if self.reg else tuple(x_shape)

    def input_grad(self, dx, x_shape):
        return self.reg.input_grad(dx, tuple(x_shape)) if self.reg else dx

    def filter_grad(self, dw):
        return self.reg.filter_grad(dw) if self.reg else dw


def _plan(x_shape, w, attrs):
    """(plan, strides) of conv3d on Input ``x_shape``."""
    pads, dil = _geometry(x_shape, w.shape, attrs)
    outs = [
        conv_out_size(x_shape[2 + i], w.shape[2 + i], pads[2 * i], pads[2 * i + 1], attrs["strides"][i], dil[i])
        for i in range(len(x_shape) - 2)
    ]
    return _Plan(x_shape[2:], w, attrs, pads, dil, outs), attrs["strides"]


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
    axes = [0] + list(range(2, dy.ndim))  # the batch and every output position
    for xs, ms in _groups(x.shape[1], w_shape[0], groups):
        for tap, win in _windows(w_shape[2:], dil, strides, dy.shape[2:]):
            dw[(ms, slice(None)) + tap] = np.tensordot(dy[:, ms], xp[(slice(None), xs) + win], axes=(axes, axes))
    return dw


def conv3d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    p, strides = _plan(x.shape, w, attrs)
    return {"Output": conv_forward(p.input(x), p.w, strides, p.pads, p.dil, attrs["groups"])}


def conv3d_grad(ins, attrs, ctx=NO_CONTEXT):
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    p, strides = _plan(x.shape, w, attrs)
    wanted, outs = ctx.wanted({"Input@GRAD", "Filter@GRAD"}), {}
    if "Input@GRAD" in wanted:
        dx = conv_grad_input(dy, p.w, p.shape(x.shape), strides, p.pads, p.dil, attrs["groups"])
        outs["Input@GRAD"] = p.input_grad(dx, x.shape)
    if "Filter@GRAD" in wanted:
        outs["Filter@GRAD"] = p.filter_grad(
            conv_grad_filter(p.input(x), dy, p.w.shape, strides, p.pads, p.dil, attrs["groups"])
        )
    return outs


def transpose_out_shape(x, w, attrs, pads, dil):
    """conv3d_transpose's Output shape: output_size where given, else the least size."""
    sizes = list(attrs.get("output_size") or [])
    least = [
        (x.shape[2 + i] - 1) * attrs["strides"][i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w.shape[2 + i] - 1) + 1
        for i in range(x.ndim - 2)
    ]
    return (x.shape[0], w.shape[1] * attrs["groups"]) + tuple(sizes or least)


def _transpose_plan(x, w, attrs):
    """(plan of the conv3d whose input gradient this transpose is, its input (our Output) shape, strides)."""
    pads, dil = _geometry(x.shape, w.shape, attrs)
    shape = transpose_out_shape(x, w, attrs, pads, dil)
    return _Plan(shape[2:], w, attrs, pads, dil, list(x.shape[2:])), shape, attrs["strides"]


def conv3d_transpose(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    p, shape, strides = _transpose_plan(x, w, attrs)
    return {
        "Output": p.input_grad(conv_grad_input(x, p.w, p.shape(shape), strides, p.pads, p.dil, attrs["groups"]), shape)
    }


def conv3d_transpose_grad(ins, attrs, ctx=NO_CONTEXT):
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    p, _, strides = _transpose_plan(x, w, attrs)
    wanted, outs = ctx.wanted({"Input@GRAD", "Filter@GRAD"}), {}
    if "Input@GRAD" in wanted:
        outs["Input@GRAD"] = conv_forward(p.input(dy), p.w, strides, p.pads, p.dil, attrs["groups"])
    if "Filter@GRAD" in wanted:
        outs["Filter@GRAD"] = p.filter_grad(
            conv_grad_filter(p.input(dy), x, p.w.shape, strides, p.pads, p.dil, attrs["groups"])
        )
    return outs
