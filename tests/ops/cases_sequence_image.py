"""Op cases for im2sequence against a numpy reference written from Fluid's doc: each image's patches
(zero padding [up, left, down, right]), row by row, each patch's values in (channel, row, column) order."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(25)


def im2sequence_ref(i, a):
    x = i["X"]
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = a["kernels"], a["strides"], a["paddings"]
    xp = np.pad(x, ((0, 0), (0, 0), (pu, pd), (pl, pr)))
    oh, ow = (xp.shape[2] - kh) // sh + 1, (xp.shape[3] - kw) // sw + 1
    rows = [
        xp[n, :, r * sh : r * sh + kh, q * sw : q * sw + kw].reshape(-1)
        for n in range(x.shape[0])
        for r in range(oh)
        for q in range(ow)
    ]
    return {"Out": np.array(rows)}


def real_size_ref(i, a):
    """With Y (each image's real [h, w]): a grid of 1 + ceil((ceil(real / out_stride) + pads - k) / stride)
    patches per side, as Fluid's Im2SeqOutputSize, reading zeros outside the image."""
    x, big = i["X"], 20
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = a["kernels"], a["strides"], a["paddings"]
    xp = np.pad(x, ((0, 0), (0, 0), (pu, big), (pl, big)))
    rows = []
    for n in range(x.shape[0]):
        h, w = (-(-int(v) // s) for v, s in zip(i["Y"][n], a["out_stride"]))
        oh, ow = 1 + (h + pu + pd - kh + sh - 1) // sh, 1 + (w + pl + pr - kw + sw - 1) // sw
        rows += [xp[n, :, r * sh : r * sh + kh, q * sw : q * sw + kw].reshape(-1) for r in range(oh) for q in range(ow)]
    return {"Out": np.array(rows)}


CASES = [
    OpCase(
        "im2sequence",
        {"X": rng.normal(size=(2, 2, 3, 3))},
        im2sequence_ref,
        attrs={"kernels": [2, 2]},
        grad=("X",),
        name="im2sequence",
    ),
    OpCase(
        "im2sequence",
        {"X": rng.normal(size=(2, 3, 4, 5))},
        im2sequence_ref,
        attrs={"kernels": [2, 3], "strides": [2, 1], "paddings": [1, 0, 0, 2]},
        grad=("X",),
        name="im2sequence_stride_uneven_padding",
    ),
    # real image sizes and out_stride (test_im2sequence_op.py's Case5-7): one larger than the image, one smaller
    OpCase(
        "im2sequence",
        {"X": rng.normal(size=(2, 2, 4, 5)), "Y": np.array([[8.0, 6.0], [3.0, 5.0]])},
        real_size_ref,
        attrs={"kernels": [2, 2], "strides": [1, 2], "paddings": [1, 0, 1, 1], "out_stride": [2, 1]},
        grad=("X",),
        outputs=("Out",),
        name="im2sequence_real_size",
    ),
]
