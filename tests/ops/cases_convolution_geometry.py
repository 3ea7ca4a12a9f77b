"""Op cases for convolutions of the geometry Fluid 1.8 runs unchecked (conv3d's: cases_convolution3d.py):
negative paddings, dilations of 0 or below, dilation lists longer than the spatial dims (their first entries
read), an output reaching past the padded input (Fluid's C++ division rounds its size toward zero), and
conv2d_transpose groups that leave input channels over. The references read as Fluid's im2col / vol2col and
col2im do, element by element: input position o * stride - pad_before + t * dilation, zero outside the input
(checked against Fluid 1.8.5, outputs and gradients, for 30 such convolutions)."""

import itertools

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(7676)


def r(*shape):
    return rng.normal(size=shape)


def _c_div(a, b):
    return a // b if a >= 0 else -(-a // b)


def _pairs(pads, rank):
    return (
        [(pads[i], pads[i]) for i in range(rank)]
        if len(pads) == rank
        else [(pads[2 * i], pads[2 * i + 1]) for i in range(rank)]
    )


def conv_ref(i, a):
    x, w = i["Input"], i["Filter"]
    rank, groups = x.ndim - 2, a["groups"]
    pads, dils, strides = _pairs(a["paddings"], rank), a["dilations"][:rank], a["strides"]
    ks, sizes = w.shape[2:], x.shape[2:]
    outs = [_c_div(n + b + e - (d * (k - 1) + 1), s) + 1 for n, (b, e), d, k, s in zip(sizes, pads, dils, ks, strides)]
    cg, mg = x.shape[1] // groups, w.shape[0] // groups
    out = np.zeros((x.shape[0], w.shape[0]) + tuple(outs))
    for o in itertools.product(*map(range, outs)):
        for t in itertools.product(*map(range, ks)):
            pos = [o_ * s - b + t_ * d for o_, s, (b, _), t_, d in zip(o, strides, pads, t, dils)]
            if all(0 <= p < n for p, n in zip(pos, sizes)):
                for g in range(groups):
                    xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + tuple(pos)]
                    out[(slice(None), slice(g * mg, (g + 1) * mg)) + o] += (
                        xs @ w[(slice(g * mg, (g + 1) * mg), slice(None)) + t].T
                    )
    return {"Output": out}


def conv_transpose_ref(i, a):
    """Each input element adds the filter's taps, scaled by it, at i * stride - pad_before + t * dilation
    when inside the output (Fluid's col2im); groups * (C_in // groups) input channels take part."""
    x, w = i["Input"], i["Filter"]
    rank, groups = x.ndim - 2, a["groups"]
    pads, dils, strides = _pairs(a["paddings"], rank), a["dilations"][:rank], a["strides"]
    ks, sizes = w.shape[2:], x.shape[2:]
    outs = [(n - 1) * s - b - e + d * (k - 1) + 1 for n, s, (b, e), d, k in zip(sizes, strides, pads, dils, ks)]
    step, og = x.shape[1] // groups, w.shape[1]
    out = np.zeros((x.shape[0], og * groups) + tuple(outs))
    for p_in in itertools.product(*map(range, sizes)):
        for t in itertools.product(*map(range, ks)):
            pos = tuple(p * s - b + t_ * d for p, s, (b, _), t_, d in zip(p_in, strides, pads, t, dils))
            if all(0 <= p < n for p, n in zip(pos, outs)):
                for g in range(groups):
                    xs = x[(slice(None), slice(g * step, (g + 1) * step)) + p_in]
                    out[(slice(None), slice(g * og, (g + 1) * og)) + pos] += (
                        xs @ w[(slice(g * step, (g + 1) * step), slice(None)) + t]
                    )
    return {"Output": out}


_G = ("Input", "Filter")
_A2 = {"strides": [1, 1], "groups": 1, "paddings": [0, 0], "dilations": [1, 1]}

CASES = [
    OpCase(
        "conv2d",
        {"Input": r(2, 3, 5, 5), "Filter": r(4, 3, 3, 3)},
        conv_ref,
        grad=_G,
        name="conv2d_any_geometry",
        attrs=dict(_A2, paddings=[-1, 2, 1, -2], dilations=[-2, 0]),
    ),
    OpCase(
        "conv2d",
        {"Input": r(2, 3, 5, 5), "Filter": r(4, 3, 3, 3)},
        conv_ref,
        grad=_G,
        attrs=dict(_A2, strides=[3, 3], paddings=[0, 0, -1, 0]),
        name="conv2d_output_past_padded_input",
    ),
    OpCase(
        "depthwise_conv2d",
        {"Input": r(2, 3, 5, 5), "Filter": r(3, 1, 3, 3)},
        conv_ref,
        grad=_G,
        attrs=dict(_A2, groups=3, paddings=[-1, 1], dilations=[0, 2, 3, 3]),
        name="depthwise_conv2d_any_geometry",
    ),
    OpCase(
        "conv2d_transpose",
        {"Input": r(2, 3, 3, 4), "Filter": r(3, 2, 3, 3)},
        conv_transpose_ref,
        grad=_G,
        attrs=dict(_A2, groups=2, paddings=[-1, 1, 0, -1], dilations=[-1, 0]),
        name="conv2d_transpose_any_geometry_groups_left_over",
    ),
]
