"""The meta rules of conv3d, conv3d_transpose and their gradients (ops/convolution3d.py; out-kernels:
kernels/cpu/convolution3d.py), structured kernels (shapes/structured.py): once per shape signature, the regular
convolution the op runs (shapes/conv_regular.py: None where its geometry is one already), its paddings, dilations
and strides (``Conv3dPlan``, ``Meta.args[0]``), and the outputs' shapes and dtypes as the tap-by-tap numpy forms
give them (NCDHW: an NDHWC op's values are transposed around its step, kernels/layout.py). One variant, "taps":
numpy's einsum per tap and group, whose results are handed over (a ``fresh`` variant: the sums accumulate in
arrays of their own); the gradients only those the op writes (``facts.wanted``)."""

from typing import NamedTuple

import numpy as np

from . import conv_regular
from .conv_pool import conv_out_size, conv_paddings
from .structured import Meta


class Conv3dPlan(NamedTuple):
    """``reg``: the Regular plan (None: the op's geometry is regular); ``pads``, ``dil``: the regular convolution's;
    ``strides``; ``in_shape``: the input shape the regular convolution sees ([N, C, *cropped]); ``w_shape``: its
    filter's (a dim summed to 1 where its dilation is 0)."""

    reg: object
    pads: list
    dil: list
    strides: list
    in_shape: tuple
    w_shape: tuple


def _geometry(x_shape, w_shape, attrs):
    return conv_paddings(
        attrs["paddings"],
        attrs["padding_algorithm"],
        list(x_shape[2:]),
        list(w_shape[2:]),
        attrs["strides"],
        attrs["dilations"],
    )


def _plan(in_shape, w_shape, attrs, pads, dil, outs):
    """The Conv3dPlan of a convolution of input ``in_shape`` [N, C, *in] to spatial sizes ``outs``."""
    reg = conv_regular.plan(list(in_shape[2:]), list(w_shape[2:]), attrs["strides"], pads, dil, outs)
    if reg is None:
        return Conv3dPlan(None, pads, dil, attrs["strides"], tuple(in_shape), tuple(w_shape))
    cropped = tuple(in_shape[:2]) + tuple(hi - lo for lo, hi in reg.windows)
    folded = tuple(w_shape[:2]) + tuple(1 if f == "sum" else k for f, k in zip(reg.folds, w_shape[2:]))
    return Conv3dPlan(reg, reg.pads, reg.dils, attrs["strides"], cropped, folded)


def forward_plan(x_shape, w_shape, attrs):
    """conv3d's plan on Input ``x_shape``."""
    pads, dil = _geometry(x_shape, w_shape, attrs)
    outs = [
        conv_out_size(x_shape[2 + i], w_shape[2 + i], pads[2 * i], pads[2 * i + 1], attrs["strides"][i], dil[i])
        for i in range(len(x_shape) - 2)
    ]
    return _plan(x_shape, w_shape, attrs, pads, dil, outs)


def regular_out(plan):
    """The spatial sizes of the regular convolution's output (its input padded, the filter dilated, strided)."""
    p, s, d, k = plan.pads, plan.strides, plan.dil, plan.w_shape[2:]
    return tuple(
        (n + p[2 * i] + p[2 * i + 1] - (d[i] * (k[i] - 1) + 1)) // s[i] + 1 for i, n in enumerate(plan.in_shape[2:])
    )


def transpose_out_shape(x_shape, w_shape, attrs, pads, dil):
    """conv3d_transpose's Output shape: output_size where given, else the least size."""
    sizes = list(attrs.get("output_size") or [])
    least = [
        (x_shape[2 + i] - 1) * attrs["strides"][i] - pads[2 * i] - pads[2 * i + 1] + dil[i] * (w_shape[2 + i] - 1) + 1
        for i in range(len(x_shape) - 2)
    ]
    return (x_shape[0], w_shape[1] * attrs["groups"]) + tuple(sizes or least)


def transpose_plan(x_shape, w_shape, attrs):
    """(plan of the conv3d whose input gradient conv3d_transpose is, conv3d_transpose's Output shape)."""
    pads, dil = _geometry(x_shape, w_shape, attrs)
    shape = transpose_out_shape(x_shape, w_shape, attrs, pads, dil)
    return _plan(shape, w_shape, attrs, pads, dil, list(x_shape[2:])), shape


def _dtype(a):
    return np.dtype(a.dtype)


def conv3d_meta(attrs, ins, facts):
    """conv3d: Output [N, M, *out] in Input's dtype."""
    x, w = ins["Input"], ins["Filter"]
    plan = forward_plan(tuple(x.shape), tuple(w.shape), attrs)
    shape = (x.shape[0], plan.w_shape[0]) + regular_out(plan)
    return Meta({"Output": (shape, _dtype(x))}, "taps", args=(plan,), fresh=True)


def conv3d_grad_meta(attrs, ins, facts):
    """conv3d_grad: Input@GRAD of Input's shape, Filter@GRAD of Filter's, both in Output@GRAD's dtype."""
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    plan = forward_plan(tuple(x.shape), tuple(w.shape), attrs)
    wanted = facts.wanted(("Input@GRAD", "Filter@GRAD"))
    specs = {"Input@GRAD": (tuple(x.shape), _dtype(dy)), "Filter@GRAD": (tuple(w.shape), _dtype(dy))}
    return Meta({s: v for s, v in specs.items() if s in wanted}, "taps", args=(plan,), fresh=True)


def conv3d_transpose_meta(attrs, ins, facts):
    """conv3d_transpose: Output (output_size, or the least size) in Input's dtype."""
    x, w = ins["Input"], ins["Filter"]
    plan, shape = transpose_plan(tuple(x.shape), tuple(w.shape), attrs)
    return Meta({"Output": (shape, _dtype(x))}, "taps", args=(plan, shape), fresh=True)


def conv3d_transpose_grad_meta(attrs, ins, facts):
    """conv3d_transpose_grad: Input@GRAD (conv3d of Output@GRAD: its dtype) and Filter@GRAD of Filter's shape in
    Input's dtype."""
    x, w, dy = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    plan, shape = transpose_plan(tuple(x.shape), tuple(w.shape), attrs)
    wanted = facts.wanted(("Input@GRAD", "Filter@GRAD"))
    specs = {
        "Input@GRAD": ((dy.shape[0], plan.w_shape[0]) + regular_out(plan), _dtype(dy)),
        "Filter@GRAD": (tuple(w.shape), _dtype(x)),
    }
    return Meta({s: v for s, v in specs.items() if s in wanted}, "taps", args=(plan, shape), fresh=True)
