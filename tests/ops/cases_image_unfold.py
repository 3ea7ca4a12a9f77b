"""Op cases for ops/image.py's unfold (im2col). Reference: the definition written as loops, each
output column one sliding block of the zero-padded input read tap by tap."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(53)


def _unfold_ref(i, a):
    x = i["X"]
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (pu, pl, pd, pr), (dh, dw) = a["kernel_sizes"], a["strides"], a["paddings"], a["dilations"]
    padded = np.zeros((n, c, h + pu + pd, w + pl + pr))
    padded[:, :, pu : pu + h, pl : pl + w] = x
    oh = (h + pu + pd - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c * kh * kw, oh * ow))
    for ch in range(c):
        for ki in range(kh):
            for kj in range(kw):
                for y in range(oh):
                    for z in range(ow):
                        out[:, (ch * kh + ki) * kw + kj, y * ow + z] = padded[:, ch, y * sh + ki * dh, z * sw + kj * dw]
    return {"Y": out}


_BASE = {"kernel_sizes": [2, 2], "strides": [1, 1], "paddings": [0, 0, 0, 0], "dilations": [1, 1]}

CASES = [
    OpCase("unfold", {"X": rng.normal(size=(2, 2, 4, 3))}, _unfold_ref, attrs=_BASE, grad=("X",)),
    OpCase(
        "unfold",
        {"X": rng.normal(size=(1, 3, 5, 6))},
        _unfold_ref,
        name="unfold_strided_padded_dilated",
        attrs={"kernel_sizes": [3, 2], "strides": [2, 1], "paddings": [1, 0, 2, 1], "dilations": [1, 2]},
        grad=("X",),
    ),
]


def _any_ref(i, a):
    """Fluid's im2col whatever the signs: tap (ki, kj) of block (y, z) reads X[y * sh - pu + ki * dh, z * sw - pl
    + kj * dw], 0 outside X; out_h = (h + pu + pd - (dh * (kh - 1) + 1)) / sh + 1 rounded toward zero."""
    x = i["X"]
    n, c, h, w = x.shape
    (kh, kw), (sh, sw), (pu, pl, pd, pr), (dh, dw) = a["kernel_sizes"], a["strides"], a["paddings"], a["dilations"]
    oh = int((h + pu + pd - dh * (kh - 1) - 1) / sh) + 1
    ow = int((w + pl + pr - dw * (kw - 1) - 1) / sw) + 1
    out = np.zeros((n, c * kh * kw, oh * ow))
    for ch, ki, kj, y, z in np.ndindex(c, kh, kw, oh, ow):
        row, col = y * sh - pu + ki * dh, z * sw - pl + kj * dw
        if 0 <= row < h and 0 <= col < w:
            out[:, (ch * kh + ki) * kw + kj, y * ow + z] = x[:, ch, row, col]
    return {"Y": out}


# negative paddings and dilations of 0 or below, which Fluid 1.8.5's im2col runs (checked against it)
CASES += [
    OpCase(
        "unfold",
        {"X": rng.normal(size=(1, 2, 5, 6))},
        _any_ref,
        name="unfold_any_paddings_dilations",
        attrs={"kernel_sizes": [2, 3], "strides": [1, 2], "paddings": [-1, 1, 0, 2], "dilations": [0, -1]},
        grad=("X",),
    ),
]
