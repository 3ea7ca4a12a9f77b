"""Op cases for ops/padding.py: pad, pad2d (constant, reflect, edge; NCHW and NHWC),
pad_constant_like, crop, crop_tensor, and Paddle 2.x's pad3d (constant, reflect, replicate, circular;
NCDHW and NDHWC; the Paddings tensor). References follow the unit tests (numpy's pad: Paddle's
replicate is numpy's edge, circular numpy's wrap)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(41)


def r(*shape):
    return rng.normal(size=shape)


def _pad2d_ref(mode, value=0.0, nhwc=False):
    def ref(i, a):
        t, b, left, right = a["paddings"]
        pads = [(0, 0), (t, b), (left, right), (0, 0)] if nhwc else [(0, 0), (0, 0), (t, b), (left, right)]
        if mode == "constant":
            return {"Out": np.pad(i["X"], pads, constant_values=value)}
        return {"Out": np.pad(i["X"], pads, mode=mode)}

    return ref


def _pad_like_ref(value):
    def ref(i, a):
        x, y = i["X"], i["Y"]
        return {"Out": np.pad(y, [(0, m - n) for m, n in zip(x.shape, y.shape)], constant_values=value)}

    return ref


CASES = [
    OpCase(
        "pad",
        {"X": r(2, 3)},
        lambda i, a: {"Out": np.pad(i["X"], [(0, 1), (2, 3)], constant_values=0.5)},
        attrs={"paddings": [0, 1, 2, 3], "pad_value": 0.5},
        grad=("X",),
    ),
    OpCase(
        "pad",
        {"X": np.array([[1, 2]], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[0, 0, 0, 0], [0, 1, 2, 0], [0, 0, 0, 0]])},
        attrs={"paddings": [1, 1, 1, 1]},
        name="pad_int64",
    ),
    OpCase(
        "pad2d",
        {"X": r(2, 3, 4, 5)},
        _pad2d_ref("constant", 1.5),
        attrs={"paddings": [1, 2, 0, 3], "pad_value": 1.5},
        grad=("X",),
    ),
    OpCase(
        "pad2d",
        {"X": r(2, 2, 4, 5)},
        _pad2d_ref("reflect"),
        attrs={"paddings": [3, 1, 2, 4], "mode": "reflect"},
        grad=("X",),
        name="pad2d_reflect",
    ),
    OpCase(
        "pad2d",
        {"X": r(1, 2, 3, 3)},
        _pad2d_ref("edge"),
        attrs={"paddings": [2, 0, 1, 4], "mode": "edge"},
        grad=("X",),
        name="pad2d_edge",
    ),
    OpCase(
        "pad2d",
        {"X": r(2, 4, 3, 2)},
        _pad2d_ref("reflect", nhwc=True),
        attrs={"paddings": [2, 1, 1, 1], "mode": "reflect", "data_format": "NHWC"},
        grad=("X",),
        name="pad2d_reflect_nhwc",
    ),
    OpCase(
        "pad2d",
        {"X": r(1, 3, 2, 2)},
        _pad2d_ref("constant", -1.0, nhwc=True),
        attrs={"paddings": [0, 1, 2, 0], "pad_value": -1.0, "data_format": "NHWC"},
        grad=("X",),
        name="pad2d_constant_nhwc",
    ),
    OpCase("pad_constant_like", {"X": r(4, 5, 3), "Y": r(2, 5, 1)}, _pad_like_ref(0.0), grad=("Y",)),
    OpCase(
        "pad_constant_like",
        {"X": r(3, 3), "Y": r(3, 1)},
        _pad_like_ref(2.0),
        attrs={"pad_value": 2.0},
        grad=("Y",),
        name="pad_constant_like_value",
    ),
    OpCase(
        "crop",
        {"X": r(4, 5, 3)},
        lambda i, a: {"Out": i["X"][1:3, 2:5, 0:2]},
        attrs={"shape": [2, 3, 2], "offsets": [1, 2, 0]},
        grad=("X",),
    ),
    OpCase(
        "crop",
        {"X": r(4, 5), "Y": r(3, 2)},
        lambda i, a: {"Out": i["X"][0:3, 3:5]},
        attrs={"offsets": [0, 3]},
        grad=("X",),
        name="crop_like_y",
    ),
    OpCase(
        "crop_tensor",
        {"X": r(3, 4, 5)},
        lambda i, a: {"Out": i["X"][1:, :, 2:4]},
        attrs={"shape": [-1, 4, 2], "offsets": [1, 0, 2]},
        grad=("X",),
    ),
    OpCase(
        "crop_tensor",
        {"X": r(3, 4)},
        lambda i, a: {"Out": i["X"][:2, :3]},
        attrs={"shape": [2, 3]},
        grad=("X",),
        name="crop_tensor_no_offsets",
    ),
]


_NUMPY_MODE = {"replicate": "edge", "circular": "wrap", "reflect": "reflect"}


def _pad3d_ref(mode, pads, value=0.0, last=False):
    def ref(i, a):
        left, right, top, bottom, front, back = pads
        spatial = [(front, back), (top, bottom), (left, right)]
        widths = [(0, 0)] + spatial + [(0, 0)] if last else [(0, 0), (0, 0)] + spatial
        if mode == "constant":
            return {"Out": np.pad(i["X"], widths, constant_values=value)}
        return {"Out": np.pad(i["X"], widths, mode=_NUMPY_MODE[mode])}

    return ref


CASES += [
    OpCase(
        "pad3d",
        {"X": r(2, 2, 3, 2, 4)},
        _pad3d_ref("constant", [1, 0, 2, 1, 0, 2], 0.5),
        attrs={"paddings": [1, 0, 2, 1, 0, 2], "value": 0.5},
        grad=("X",),
    ),
    OpCase(
        "pad3d",
        {"X": r(1, 2, 3, 4, 3)},
        _pad3d_ref("reflect", [2, 1, 3, 0, 1, 2]),
        attrs={"paddings": [2, 1, 3, 0, 1, 2], "mode": "reflect"},
        grad=("X",),
        name="pad3d_reflect",
    ),
    OpCase(
        "pad3d",
        {"X": r(1, 2, 2, 3, 3)},
        _pad3d_ref("replicate", [0, 3, 1, 1, 2, 0], last=True),
        attrs={"paddings": [0, 3, 1, 1, 2, 0], "mode": "replicate", "data_format": "NDHWC"},
        grad=("X",),
        name="pad3d_replicate_ndhwc",
    ),
    OpCase(
        "pad3d",
        {"X": r(2, 1, 2, 3, 2)},
        _pad3d_ref("circular", [1, 2, 2, 1, 1, 1]),
        attrs={"paddings": [1, 2, 2, 1, 1, 1], "mode": "circular"},
        grad=("X",),
        name="pad3d_circular",
    ),
    OpCase(
        "pad3d",
        {"X": r(1, 1, 2, 2, 3), "Paddings": np.array([1, 1, 0, 2, 1, 0], np.int32)},
        _pad3d_ref("constant", [1, 1, 0, 2, 1, 0], -2.0),
        attrs={"value": -2.0},
        grad=("X",),
        name="pad3d_paddings_tensor",
    ),
]

# pad's gradient op has a gradient too (Paddle's pad double grad): pad of what reaches X@GRAD
CASES += [
    OpCase(
        "pad_grad",
        {"X": r(2, 3), "Out@GRAD": r(3, 5)},
        lambda i, a: {"X@GRAD": i["Out@GRAD"][1:3, 2:5]},
        attrs={"paddings": [1, 0, 2, 0]},
        grad=("Out@GRAD",),
        name="pad_grad_double",
    ),
]

# pad2d as Fluid's kernel reads its attributes: a negative padding crops, any mode but reflect and edge is
# constant, any data_format but NCHW is channels last (checked against Fluid 1.8.5, gradients included)


def _pad2d_crop_ref(mode, value=0.0, nhwc=False):
    def ref(i, a):
        x, (t, b, left, right) = i["X"], a["paddings"]
        h, w = (1, 2) if nhwc else (2, 3)
        x = x[(slice(None),) * h + (slice(max(-t, 0), x.shape[h] - max(-b, 0)),)]
        x = x[(slice(None),) * w + (slice(max(-left, 0), x.shape[w] - max(-right, 0)),)]
        widths = [(0, 0)] * 4
        widths[h], widths[w] = (max(t, 0), max(b, 0)), (max(left, 0), max(right, 0))
        if mode == "constant":
            return {"Out": np.pad(x, widths, constant_values=value)}
        return {"Out": np.pad(x, widths, mode=mode)}

    return ref


CASES += [
    OpCase(
        "pad2d",
        {"X": r(2, 3, 4, 5)},
        _pad2d_crop_ref("constant", 0.5),
        attrs={"paddings": [-1, 2, 0, -2], "pad_value": 0.5},
        grad=("X",),
        name="pad2d_negative_paddings",
    ),
    OpCase(
        "pad2d",
        {"X": r(1, 4, 3, 2)},
        _pad2d_crop_ref("edge", nhwc=True),
        attrs={"paddings": [1, -1, -1, 2], "mode": "edge", "data_format": "NHWC"},
        grad=("X",),
        name="pad2d_edge_crop_nhwc",
    ),
    # (a mode or data_format no writer writes, which Fluid's kernel ran as constant / channels last, is
    # refused: tests/io/test_paddle26_strict_reads.py)
]

# crop_tensor's shape attribute: a size <= 0 is X's dim less the offset, as Fluid's kernel reads it
CASES += [
    OpCase(
        "crop_tensor",
        {"X": r(3, 4, 5)},
        lambda i, a: {"Out": i["X"][1:, :, 2:]},
        attrs={"shape": [0, -2, 0], "offsets": [1, 0, 2]},
        grad=("X",),
        name="crop_tensor_nonpositive_shape",
    ),
]
