"""Op cases for deformable_conv / deformable_conv_v1 (ops/convolution.py): a direct loop over outputs,
taps and channels with a scalar bilinear sampler (zero outside), as Fluid 1.8's
test_deformable_conv_op.py."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(97)


def _bilinear(img, y, x):
    h, w = img.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    total = 0.0
    for yy, xx in ((y0, x0), (y0, x0 + 1), (y0 + 1, x0), (y0 + 1, x0 + 1)):
        if 0 <= yy < h and 0 <= xx < w:
            total += img[yy, xx] * (1 - abs(y - yy)) * (1 - abs(x - xx))
    return total


def _ref(i, a):
    x, wt, off = i["Input"], i["Filter"], i["Offset"]
    mask = i.get("Mask")
    n, c, h, w = x.shape
    m, cg, kh, kw = wt.shape
    g, dg = a["groups"], a["deformable_groups"]
    (sh, sw), (ph, pw), (dh, dw) = a["strides"], a["paddings"], a["dilations"]
    ho, wo = off.shape[2:]
    out = np.zeros((n, m, ho, wo))
    for b in range(n):
        for oc in range(m):
            grp = oc // (m // g)
            for y in range(ho):
                for z in range(wo):
                    acc = 0.0
                    for ci in range(cg):
                        ch = grp * cg + ci
                        d = ch // (c // dg)
                        for p in range(kh):
                            for q in range(kw):
                                t = p * kw + q
                                py = y * sh - ph + p * dh + off[b, 2 * (d * kh * kw + t), y, z]
                                px = z * sw - pw + q * dw + off[b, 2 * (d * kh * kw + t) + 1, y, z]
                                v = _bilinear(x[b, ch], py, px)
                                if mask is not None:
                                    v *= mask[b, d * kh * kw + t, y, z]
                                acc += wt[oc, ci, p, q] * v
                    out[b, oc, y, z] = acc
    return {"Output": out}


_ATTRS = {"strides": [1, 1], "paddings": [1, 1], "dilations": [1, 1], "groups": 1, "deformable_groups": 1}

CASES = [
    OpCase(
        "deformable_conv",
        {
            "Input": rng.normal(size=(1, 2, 4, 4)),
            "Offset": rng.uniform(-1.5, 1.5, (1, 18, 4, 4)),
            "Mask": rng.uniform(0.2, 1, (1, 9, 4, 4)),
            "Filter": rng.normal(size=(3, 2, 3, 3)),
        },
        _ref,
        attrs=dict(_ATTRS),
        grad=("Input", "Offset", "Mask", "Filter"),
    ),
    OpCase(
        "deformable_conv",
        {
            "Input": rng.normal(size=(2, 4, 5, 4)),
            "Offset": rng.uniform(-1, 1, (2, 16, 2, 2)),
            "Mask": rng.uniform(0.2, 1, (2, 8, 2, 2)),
            "Filter": rng.normal(size=(4, 2, 2, 2)),
        },
        _ref,
        attrs=dict(_ATTRS, strides=[2, 2], paddings=[0, 0], dilations=[2, 1], groups=2, deformable_groups=2),
        grad=("Input", "Offset", "Mask", "Filter"),
        name="deformable_conv_groups_stride_dilation",
    ),
    OpCase(
        "deformable_conv_v1",
        {
            "Input": rng.normal(size=(1, 2, 4, 3)),
            "Offset": rng.uniform(-2, 2, (1, 8, 5, 2)),
            "Filter": rng.normal(size=(2, 2, 2, 2)),
        },
        _ref,
        attrs=dict(_ATTRS, paddings=[1, 0]),
        grad=("Input", "Offset", "Filter"),
    ),
]

# Paddle 2.6.2 recorded (tools/paddle26_op_cases.py): deform_conv2d's ops, v2 and v1 (issue 96)
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += [c for c in recorded_cases("convolution") if c.op.startswith("deformable_conv")]
