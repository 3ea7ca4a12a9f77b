"""Op cases for conv2d_transpose (ops/convolution.py) with strides, paddings (2 and 4 of them),
dilations, groups and output_size. The reference follows Fluid 1.8's test_conv2d_transpose_op.py:
every input pixel adds the filter's taps scaled by it, then the paddings are cut off."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(2011)


def r(*shape):
    return rng.normal(size=shape)


def _conv_transpose_ref(i, a):
    x, w = i["Input"], i["Filter"]
    n, cin, h, wd = x.shape
    _, cout_g, kh, kw = w.shape
    groups = a.get("groups", 1)
    sh, sw = a.get("strides", [1, 1])
    dh, dw = a.get("dilations", [1, 1])
    p = a.get("paddings", [0, 0])
    pt, pb, pl, pr = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    out_h = (h - 1) * sh - pt - pb + dh * (kh - 1) + 1
    out_w = (wd - 1) * sw - pl - pr + dw * (kw - 1) + 1
    if a.get("output_size"):
        out_h, out_w = a["output_size"]
    if a.get("output_padding"):
        out_h, out_w = out_h + a["output_padding"][0], out_w + a["output_padding"][1]
    full = np.zeros(
        (
            n,
            cout_g * groups,
            max(pt + out_h, (h - 1) * sh + dh * (kh - 1) + 1),
            max(pl + out_w, (wd - 1) * sw + dw * (kw - 1) + 1),
        )
    )
    per_group = cin // groups
    for b in range(n):
        for c in range(cin):
            g = c // per_group
            for y in range(h):
                for xx in range(wd):
                    for u in range(kh):
                        for v in range(kw):
                            full[b, g * cout_g : (g + 1) * cout_g, y * sh + u * dh, xx * sw + v * dw] += (
                                x[b, c, y, xx] * w[c, :, u, v]
                            )
    return {"Output": full[:, :, pt : pt + out_h, pl : pl + out_w]}


def _nhwc_ref(i, a):
    """The NCHW reference between transposes (Filter is [C_in, C_out/groups, kh, kw] in both layouts)."""
    out = _conv_transpose_ref({"Input": i["Input"].transpose(0, 3, 1, 2), "Filter": i["Filter"]}, a)["Output"]
    return {"Output": out.transpose(0, 2, 3, 1)}


CASES = [
    OpCase(
        "conv2d_transpose",
        {"Input": r(2, 3, 3, 4), "Filter": r(3, 2, 3, 3)},
        _conv_transpose_ref,
        grad=("Input", "Filter"),
    ),
    OpCase(
        "conv2d_transpose",
        {"Input": r(1, 4, 3, 3), "Filter": r(4, 3, 3, 2)},
        _conv_transpose_ref,
        attrs={"strides": [2, 2], "paddings": [1, 1], "groups": 2},
        grad=("Input", "Filter"),
        name="conv2d_transpose_stride_groups",
    ),
    OpCase(
        "conv2d_transpose",
        {"Input": r(2, 2, 2, 3), "Filter": r(2, 2, 2, 3)},
        _conv_transpose_ref,
        attrs={"strides": [2, 1], "paddings": [1, 0, 0, 2], "dilations": [2, 1]},
        grad=("Input", "Filter"),
        name="conv2d_transpose_dilation_pads4",
    ),
    OpCase(
        "conv2d_transpose",
        {"Input": r(1, 2, 3, 3), "Filter": r(2, 1, 3, 3)},
        _conv_transpose_ref,
        attrs={"strides": [2, 2], "paddings": [1, 1], "output_size": [6, 5]},
        grad=("Input", "Filter"),
        name="conv2d_transpose_output_size",
    ),
    OpCase(
        "conv2d_transpose",
        {"Input": r(1, 2, 2, 3), "Filter": r(2, 2, 2, 2)},
        _conv_transpose_ref,
        attrs={"strides": [3, 2], "paddings": [0, 1], "output_padding": [2, 1]},
        grad=("Input", "Filter"),
        name="conv2d_transpose_output_padding",
    ),
    # NHWC (test_conv2d_transpose_op.py's *_NHWC cases) and the depthwise twin Fluid's layer builds
    OpCase(
        "conv2d_transpose",
        {"Input": r(1, 3, 4, 4), "Filter": r(4, 1, 3, 3)},
        _nhwc_ref,
        attrs={"strides": [2, 1], "paddings": [1, 0], "groups": 2, "data_format": "NHWC"},
        grad=("Input", "Filter"),
        name="conv2d_transpose_nhwc",
    ),
    OpCase(
        "depthwise_conv2d_transpose",
        {"Input": r(2, 3, 3, 3), "Filter": r(3, 1, 2, 2)},
        _conv_transpose_ref,
        attrs={"strides": [2, 2], "paddings": [1, 1], "groups": 3},
        grad=("Input", "Filter"),
    ),
]
