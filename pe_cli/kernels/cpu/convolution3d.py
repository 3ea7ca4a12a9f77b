"""CPU kernels of ops/convolution3d.py (NCDHW; NDHWC is transposed around them, kernels/layout.py). A
convolution is a sum over the filter's taps: for each tap (kd, kh, kw) the strided, dilated window
of the padded input it reads, contracted with that tap's [M, C/groups] filter matrix (a GEMM per tap
and group, numpy's einsum). The input gradient spreads each tap's product back into its window; the
filter gradient contracts the window with the output gradient. conv3d_transpose is the input
gradient of conv3d, so its kernels are these three with the roles swapped. Structured kernels: the meta rules
(shapes/convolution3d.py) plan the regular convolution once per shape signature, the out-kernels below hand over
the arrays the sums made."""

import itertools

import numpy as np

from ...shapes import convolution3d as conv3d_rules
from ..structured import adapter, fresh_output
from .launches import by_variant


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


# -- the out-kernels (meta rules: shapes/convolution3d.py; ``meta.args[0]``: the Conv3dPlan) ------------------------


def _input(plan, x):
    return plan.reg.input(x) if plan.reg else x


def _filter(plan, w):
    return plan.reg.filter(w) if plan.reg else w


def _input_grad(plan, dx, x_shape):
    return plan.reg.input_grad(dx, tuple(x_shape)) if plan.reg else dx


def _filter_grad(plan, dw):
    return plan.reg.filter_grad(dw) if plan.reg else dw


def _put(outs, meta, ins, results):
    for slot, result in results.items():
        outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))


def _conv3d(ins, outs, attrs, meta):
    (p,) = meta.args
    y = conv_forward(_input(p, ins["Input"]), _filter(p, ins["Filter"]), p.strides, p.pads, p.dil, attrs["groups"])
    _put(outs, meta, ins, {"Output": y})


def _conv3d_grad(ins, outs, attrs, meta):
    x, dy, (p,), results = ins["Input"], ins["Output@GRAD"], meta.args, {}
    w = _filter(p, ins["Filter"])
    if "Input@GRAD" in meta.outputs:
        dx = conv_grad_input(dy, w, p.in_shape, p.strides, p.pads, p.dil, attrs["groups"])
        results["Input@GRAD"] = _input_grad(p, dx, x.shape)
    if "Filter@GRAD" in meta.outputs:
        dw = conv_grad_filter(_input(p, x), dy, p.w_shape, p.strides, p.pads, p.dil, attrs["groups"])
        results["Filter@GRAD"] = _filter_grad(p, dw)
    _put(outs, meta, ins, results)


def _conv3d_transpose(ins, outs, attrs, meta):
    p, shape = meta.args
    dx = conv_grad_input(ins["Input"], _filter(p, ins["Filter"]), p.in_shape, p.strides, p.pads, p.dil, attrs["groups"])
    _put(outs, meta, ins, {"Output": _input_grad(p, dx, shape)})


def _conv3d_transpose_grad(ins, outs, attrs, meta):
    x, dy, (p, _), results = ins["Input"], ins["Output@GRAD"], meta.args, {}
    w = _filter(p, ins["Filter"])
    if "Input@GRAD" in meta.outputs:
        results["Input@GRAD"] = conv_forward(_input(p, dy), w, p.strides, p.pads, p.dil, attrs["groups"])
    if "Filter@GRAD" in meta.outputs:
        dw = conv_grad_filter(_input(p, dy), x, p.w_shape, p.strides, p.pads, p.dil, attrs["groups"])
        results["Filter@GRAD"] = _filter_grad(p, dw)
    _put(outs, meta, ins, results)


CONV3D = by_variant("conv3d_out", None, taps=_conv3d)
CONV3D_GRAD = by_variant("conv3d_grad_out", None, taps=_conv3d_grad)
CONV3D_TRANSPOSE = by_variant("conv3d_transpose_out", None, taps=_conv3d_transpose)
CONV3D_TRANSPOSE_GRAD = by_variant("conv3d_transpose_grad_out", None, taps=_conv3d_transpose_grad)

# the four as ``kernel(ins, attrs, ctx)``, for CUDA's host rows (kernels/cuda/convolution3d.py's HOST_OPS)
conv3d = adapter(conv3d_rules.conv3d_meta, CONV3D, "conv3d")
conv3d_grad = adapter(conv3d_rules.conv3d_grad_meta, CONV3D_GRAD, "conv3d_grad")
conv3d_transpose = adapter(conv3d_rules.conv3d_transpose_meta, CONV3D_TRANSPOSE, "conv3d_transpose")
conv3d_transpose_grad = adapter(conv3d_rules.conv3d_transpose_grad_meta, CONV3D_TRANSPOSE_GRAD, "conv3d_transpose_grad")
