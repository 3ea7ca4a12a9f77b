"""Op cases for max_pool2d/3d_with_index and unpool/unpool3d (ops/pooling_mask.py): explicit loops over
the windows (start o * stride - padding clipped to X; adaptive floor/ceil windows), the mask the flat
position of the window's first maximum in its plane; unpooling writes each value at its index."""

import math

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(83)


def _distinct(*shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0 - 3.0  # no ties: exact gradients


def _pool_ref(i, a):
    x = i["X"]
    dims = x.shape[2:]
    if a.get("global_pooling"):  # Fluid's ksize: X's size, no padding
        a = dict(a, ksize=list(dims), paddings=[0] * len(dims))
    if a.get("adaptive"):
        outs = list(a["ksize"])
    else:  # Fluid's C++ division rounds toward zero
        outs = [int((d + 2 * p - k) / s) + 1 for d, k, s, p in zip(dims, a["ksize"], a["strides"], a["paddings"])]
    out = np.zeros(x.shape[:2] + tuple(outs))
    mask = np.zeros(out.shape, np.int32)
    for n, c in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*outs):
            box = []
            for d in range(len(dims)):
                if a.get("adaptive"):
                    box.append(range(math.floor(o[d] * dims[d] / outs[d]), math.ceil((o[d] + 1) * dims[d] / outs[d])))
                else:
                    start = o[d] * a["strides"][d] - a["paddings"][d]
                    box.append(range(max(start, 0), min(start + a["ksize"][d], dims[d])))
            best, at = -3.4028234663852886e38, -1  # Fluid's loop starts from -FLT_MAX
            for pos in np.ndindex(*[len(r) for r in box]):
                coord = tuple(r[q] for r, q in zip(box, pos))
                if x[(n, c) + coord] > best:
                    best, at = x[(n, c) + coord], int(np.ravel_multi_index(coord, dims))
            out[(n, c) + o], mask[(n, c) + o] = best, at
    return {"Out": out, "Mask": mask}


def _unpool_ref(i, a):
    x, idx = i["X"], i["Indices"]
    dims = a["output_size"] or [
        (d - 1) * s - 2 * p + k for d, k, s, p in zip(x.shape[2:], a["ksize"], a["strides"], a["paddings"])
    ]
    out = np.zeros(x.shape[:2] + tuple(dims))
    for n, c in np.ndindex(*x.shape[:2]):
        plane = out[n, c].reshape(-1)
        for q in np.ndindex(*x.shape[2:]):
            plane[idx[(n, c) + q]] = x[(n, c) + q]
    return {"Out": out}


def _mask_of(x, attrs):
    return _pool_ref({"X": x}, attrs)["Mask"]


_P2 = {"ksize": [2, 2], "strides": [2, 2], "paddings": [0, 0]}
_X2 = _distinct(2, 3, 4, 6)
_P3 = {"ksize": [2, 2, 2], "strides": [2, 2, 2], "paddings": [0, 0, 0]}
_X3 = _distinct(1, 2, 4, 4, 4)

CASES = [
    OpCase(
        "max_pool2d_with_index",
        {"X": _distinct(2, 2, 5, 6)},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [3, 2], "strides": [2, 1], "paddings": [1, 0]},
    ),
    OpCase(
        "max_pool2d_with_index",
        {"X": _distinct(1, 2, 5, 7)},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [2, 3], "adaptive": True},
        name="max_pool2d_with_index_adaptive",
    ),
    OpCase(
        "max_pool2d_with_index",
        {"X": np.zeros((1, 1, 3, 3))},
        _pool_ref,
        attrs={"ksize": [2, 2]},
        name="max_pool2d_with_index_ties_first",
    ),
    OpCase(
        "max_pool3d_with_index",
        {"X": _distinct(1, 2, 5, 4, 5)},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [3, 2, 2], "strides": [2, 2, 1], "paddings": [1, 0, 1]},
    ),
    OpCase(
        "max_pool3d_with_index",
        {"X": _distinct(1, 1, 3, 5, 4)},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [2, 2, 3], "adaptive": True},
        name="max_pool3d_with_index_adaptive",
    ),
    OpCase(
        "unpool",
        {"X": rng.normal(size=(2, 3, 2, 3)), "Indices": _mask_of(_X2, _P2)},
        _unpool_ref,
        grad=("X",),
        attrs=dict(_P2),
    ),
    OpCase(
        "unpool",
        {"X": rng.normal(size=(2, 3, 2, 3)), "Indices": _mask_of(_X2, _P2).astype(np.int64)},
        _unpool_ref,
        grad=("X",),
        attrs=dict(_P2, output_size=[5, 7]),
        name="unpool_output_size",
    ),
    OpCase(
        "unpool3d",
        {"X": rng.normal(size=(1, 2, 2, 2, 2)), "Indices": _mask_of(_X3, _P3)},
        _unpool_ref,
        grad=("X",),
        attrs=dict(_P3),
    ),
]

# ksize and paddings Fluid 1.8.5's loop runs unchecked: a window left empty (here by ksize 1 at padding 1) is
# -FLT_MAX with Mask -1 and takes no gradient; a negative padding crops (checked against the oracle)
_MASK_RNG = np.random.default_rng(84)
CASES += [
    OpCase(
        "max_pool2d_with_index",
        {"X": _MASK_RNG.permutation(60).reshape(2, 2, 3, 5) / 10.0},
        _pool_ref,
        attrs={"ksize": [1, 1], "strides": [2, 1], "paddings": [1, 0]},
        name="max_pool2d_with_index_empty_windows",
    ),
    OpCase(
        "max_pool3d_with_index",
        {"X": _MASK_RNG.permutation(100).reshape(1, 2, 5, 2, 5) / 10.0},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [3, 2, 2], "strides": [2, 2, 1], "paddings": [-1, 0, -1]},
        name="max_pool3d_with_index_negative_paddings",
    ),
    # global pooling's ksize is X's size: adaptive, Out is X's size, one element a window (Paddle's
    # test_pool_max_op.py TestCastAdaptive2d; pe pooled to 1x1)
    OpCase(
        "max_pool2d_with_index",
        {"X": _distinct(2, 3, 4, 5)},
        _pool_ref,
        grad=("X",),
        loss_outputs=("Out",),
        attrs={"ksize": [3, 3], "strides": [2, 2], "global_pooling": True, "adaptive": True},
        name="max_pool2d_with_index_global_adaptive",
    ),
]
