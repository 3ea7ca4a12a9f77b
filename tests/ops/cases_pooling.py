"""Op cases for pool2d and pool3d (ops/pooling.py): explicit loops with Fluid's window rule (start clipped
at 0, end at the dim; exclusive averages over the window's elements inside X) and adaptive windows."""

import math

import numpy as np

from op_test import OpCase
from tests.ops.cases_convolution import _nhwc

rng = np.random.default_rng(71)


def _ref(i, a):
    x = i["X"]
    n, c = x.shape[:2]
    dims = x.shape[2:]
    if a["global_pooling"]:
        ks, ss, pads, outs = list(dims), [1, 1, 1], [0] * 6, [1, 1, 1]
    else:
        ks, ss = a["ksize"], a["strides"]
        p = a["paddings"]
        pads = [p[0], p[0], p[1], p[1], p[2], p[2]] if len(p) == 3 else list(p)
        outs = []
        for k in range(3):
            span = dims[k] + pads[2 * k] + pads[2 * k + 1] - ks[k]
            outs.append((span + ss[k] - 1) // ss[k] + 1 if a["ceil_mode"] else span // ss[k] + 1)
    if a["adaptive"]:
        outs = list(a["ksize"])
    out = np.zeros((n, c) + tuple(outs))
    for o in np.ndindex(*outs):
        box, volume = [], 1
        for k in range(3):
            if a["adaptive"] and a["pooling_type"] == "max":  # Fluid's kernels: plain windows (_adaptive_ref)
                s, e = o[k] * ss[k], min(o[k] * ss[k] + outs[k], dims[k])
            elif a["adaptive"]:
                s, e = int(math.floor(o[k] * dims[k] / outs[k])), int(math.ceil((o[k] + 1) * dims[k] / outs[k]))
            else:
                start = o[k] * ss[k] - pads[2 * k]
                s, e = max(start, 0), min(start + ks[k], dims[k])
            box.append(slice(s, e))
            volume *= (e - s) if (a["exclusive"] or a["adaptive"]) else ks[k]
        win = x[(slice(None), slice(None)) + tuple(box)]
        out[(slice(None), slice(None)) + o] = (
            win.max(axis=(2, 3, 4)) if a["pooling_type"] == "max" else win.sum(axis=(2, 3, 4)) / volume
        )
    return {"Out": out}


def _distinct(*shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0  # no ties: max's gradient is exact


CASES = [
    OpCase(
        "pool3d", {"X": _distinct(2, 2, 4, 5, 4)}, _ref, attrs={"ksize": [2, 3, 2], "strides": [2, 1, 2]}, grad=("X",)
    ),
    OpCase(
        "pool3d",
        {"X": rng.normal(size=(1, 2, 5, 4, 4))},
        _ref,
        attrs={"pooling_type": "avg", "ksize": [3, 3, 3], "strides": [2, 2, 2], "paddings": [1, 1, 1]},
        grad=("X",),
        name="pool3d_avg_exclusive_padded",
    ),
    OpCase(
        "pool3d",
        {"X": rng.normal(size=(1, 1, 5, 5, 3))},
        _ref,
        attrs={"pooling_type": "avg", "ksize": [2, 2, 2], "strides": [2, 2, 2], "exclusive": False, "ceil_mode": True},
        grad=("X",),
        name="pool3d_avg_inclusive_ceil",
    ),
    OpCase(
        "pool3d",
        {"X": _distinct(1, 2, 5, 7, 3)},
        _ref,
        attrs={"pooling_type": "max", "ksize": [3, 2, 2], "paddings": [1, 0, 1, 1, 0, 0], "strides": [2, 3, 1]},
        grad=("X",),
        name="pool3d_max_six_paddings",
    ),
    OpCase(
        "pool3d",
        {"X": rng.normal(size=(2, 2, 5, 7, 3))},
        _ref,
        attrs={"pooling_type": "avg", "ksize": [2, 3, 2], "adaptive": True},
        grad=("X",),
        name="pool3d_adaptive_avg",
    ),
    OpCase(
        "pool3d",
        {"X": _distinct(1, 3, 3, 4, 2)},
        _ref,
        attrs={"global_pooling": True},
        grad=("X",),
        name="pool3d_global_max",
    ),
]


def _ndhwc(case):
    """``case`` (X NCDHW) as its NDHWC twin: X channels last, the reference run on it transposed back."""

    def ref(i, a):
        first = dict(i, X=np.transpose(i["X"], (0, 4, 1, 2, 3)))
        return {"Out": np.transpose(case.ref(first, dict(a, data_format="NCDHW"))["Out"], (0, 2, 3, 4, 1))}

    return OpCase(
        "pool3d",
        {"X": np.ascontiguousarray(np.transpose(case.inputs["X"], (0, 2, 3, 4, 1)))},
        ref,
        attrs=dict(case.attrs, data_format="NDHWC"),
        grad=case.grad,
        name=case.id + "_ndhwc",
    )


CASES += [_ndhwc(CASES[0]), _ndhwc(CASES[1])]  # test_pool3d_op.py's *_channel_last


def r(*shape):
    return rng.normal(size=shape)


# -- pool2d: explicit loops with Fluid's window rule (hstart clipped at 0, hend at H) --------------


def pool_ref(x, ksize, strides, pads, pool_type, exclusive=True, ceil_mode=False, global_pooling=False):
    n, c, h, w = x.shape
    if global_pooling:
        ksize, strides, pads = (h, w), (1, 1), (0, 0, 0, 0)
    t, b, left, right = pads

    def out_len(size, k, p0, p1, s):
        return (size + p0 + p1 - k + (s - 1 if ceil_mode else 0)) // s + 1

    ho, wo = out_len(h, ksize[0], t, b, strides[0]), out_len(w, ksize[1], left, right, strides[1])
    out = np.zeros((n, c, ho, wo), dtype=x.dtype)
    for oh in range(ho):
        hs = oh * strides[0] - t
        he, hs = min(hs + ksize[0], h), max(hs, 0)
        for ow in range(wo):
            ws = ow * strides[1] - left
            we, ws = min(ws + ksize[1], w), max(ws, 0)
            for ni in range(n):
                for ci in range(c):
                    win = x[ni, ci, hs:he, ws:we]
                    if pool_type == "max":
                        out[ni, ci, oh, ow] = win.max()
                    else:
                        count = win.size if exclusive else ksize[0] * ksize[1]
                        out[ni, ci, oh, ow] = win.sum() / count
    return out


def _pool_case(x, attrs, pads=(0, 0, 0, 0), name="", **kw):
    def ref(i, a):
        return {
            "Out": pool_ref(
                i["X"],
                a["ksize"],
                a["strides"],
                pads,
                a["pooling_type"],
                a["exclusive"],
                a["ceil_mode"],
                a["global_pooling"],
            )
        }

    return OpCase("pool2d", {"X": x}, ref, attrs=attrs, grad=("X",), name=name, **kw)


CASES += [
    # pool2d
    _pool_case(r(2, 3, 4, 4), {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}, name="pool2d_max_2x2"),
    _pool_case(
        r(1, 2, 5, 5),
        {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
        pads=(1, 1, 1, 1),
        name="pool2d_max_3x3_pad",
    ),
    _pool_case(
        r(1, 2, 5, 5),
        {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
        pads=(1, 1, 1, 1),
        name="pool2d_avg_exclusive",
    ),
    _pool_case(
        r(1, 2, 5, 5),
        {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1], "exclusive": False},
        pads=(1, 1, 1, 1),
        name="pool2d_avg_inclusive",
    ),
    _pool_case(
        r(1, 2, 5, 5),
        {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
        name="pool2d_avg_ceil_mode",
    ),
    _pool_case(
        r(1, 2, 5, 7),
        {"pooling_type": "max", "ksize": [2, 3], "strides": [2, 2], "ceil_mode": True},
        name="pool2d_max_ceil_mode",
    ),
    _pool_case(r(1, 2, 4, 4), {"pooling_type": "max", "ksize": [3, 3], "strides": [1, 1]}, name="pool2d_max_by_window"),
    _pool_case(
        r(1, 2, 5, 4),
        {"pooling_type": "avg", "ksize": [4, 3], "strides": [1, 1], "paddings": [1, 0]},
        pads=(1, 1, 0, 0),
        name="pool2d_avg_by_window",
    ),
    _pool_case(
        r(2, 3, 4, 5), {"pooling_type": "max", "global_pooling": True, "ksize": [2, 2]}, name="pool2d_global_max"
    ),
    _pool_case(r(2, 3, 4, 5), {"pooling_type": "avg", "global_pooling": True}, name="pool2d_global_avg"),
    _nhwc(
        _pool_case(
            r(2, 3, 5, 4),
            {"pooling_type": "max", "ksize": [3, 2], "strides": [2, 2], "paddings": [1, 0]},
            pads=(1, 1, 0, 0),
            name="pool2d_max",
        ),
        "X",
        "Out",
    ),
    _nhwc(
        _pool_case(
            r(1, 2, 5, 5),
            {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
            name="pool2d_avg_ceil",
        ),
        "X",
        "Out",
    ),
]


# -- pool2d with adaptive=True (adaptive_pool2d) ------------------------------------------------------


def _adaptive_ref(i, a):
    """Adaptive windows for avg; max pools plain ksize windows at strides from 0, as the kernels of Fluid
    1.8.5 and Paddle 2.6 do with adaptive=True (both oracles checked)."""
    x, (oh, ow) = i["X"], a["ksize"]
    n, c, h, w = x.shape
    (sh, sw), plain = a["strides"], a["pooling_type"] == "max"
    out = np.zeros((n, c, oh, ow))
    for p in range(oh):
        for q in range(ow):
            hs, he = int(np.floor(p * h / oh)), int(np.ceil((p + 1) * h / oh))
            ws, we = int(np.floor(q * w / ow)), int(np.ceil((q + 1) * w / ow))
            if plain:
                hs, he, ws, we = p * sh, min(p * sh + oh, h), q * sw, min(q * sw + ow, w)
            win = x[:, :, hs:he, ws:we]
            out[:, :, p, q] = win.max(axis=(2, 3)) if a["pooling_type"] == "max" else win.mean(axis=(2, 3))
    return {"Out": out}


CASES += [
    OpCase(
        "pool2d",
        {"X": r(2, 3, 5, 7)},
        _adaptive_ref,
        attrs={"adaptive": True, "ksize": [3, 2], "pooling_type": "avg"},
        grad=("X",),
        name="pool2d_adaptive_avg_overlapping",
    ),
    OpCase(
        "pool2d",
        {"X": rng.permutation(2 * 2 * 6 * 4).reshape(2, 2, 6, 4) / 7.0},
        _adaptive_ref,
        attrs={"adaptive": True, "ksize": [4, 3], "pooling_type": "max"},
        grad=("X",),
        name="pool2d_adaptive_max",
    ),
    OpCase(
        "pool2d",
        {"X": r(1, 2, 4, 4)},
        _adaptive_ref,
        attrs={"adaptive": True, "ksize": [1, 1], "pooling_type": "avg"},
        name="pool2d_adaptive_global",
    ),
]

# pool2d's gradient op has a gradient too (Paddle's pool2d_double_grad): pool2d of what reaches
# X@GRAD; average pooling over 2x2 windows, each X@GRAD a quarter of its window's Out@GRAD
CASES += [
    OpCase(
        "pool2d_grad",
        {"X": r(1, 2, 4, 4), "Out": r(1, 2, 2, 2), "Out@GRAD": r(1, 2, 2, 2)},
        lambda i, a: {"X@GRAD": np.repeat(np.repeat(i["Out@GRAD"], 2, 2), 2, 3) / 4.0},
        attrs={"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2]},
        grad=("Out@GRAD",),
        name="pool2d_grad_avg_double",
    ),
]


def _spp(i, a):
    """Each level by hand: 2^p x 2^p bins of ceil(H / 2^p) pixels, padded windows clipped to X."""
    x, levels = i["X"], []
    n, c, h, w = x.shape
    for p in range(a["pyramid_height"]):
        bins = 2**p
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2
        out = np.empty((n, c, bins, bins))
        for r in range(bins):
            for s in range(bins):
                win = x[
                    :, :, max(r * kh - ph, 0) : min(r * kh - ph + kh, h), max(s * kw - pw, 0) : min(s * kw - pw + kw, w)
                ]
                out[:, :, r, s] = win.max(axis=(2, 3)) if a["pooling_type"] == "max" else win.mean(axis=(2, 3))
        levels.append(out.reshape(n, -1))
    return {"Out": np.concatenate(levels, axis=1)}


CASES += [
    # 3 x 5 pixels into 2 x 2 bins: windows 2 x 3 padded by 1, so each bin's window is clipped
    OpCase(
        "spp",
        {"X": rng.permutation(30).reshape(1, 2, 3, 5).astype(np.float64) / 10},
        _spp,
        attrs={"pyramid_height": 2, "pooling_type": "max"},
        grad=("X",),
    ),
    OpCase(
        "spp",
        {"X": r(2, 1, 3, 4)},
        _spp,
        attrs={"pyramid_height": 2, "pooling_type": "avg"},
        grad=("X",),
        name="spp_avg",
    ),
]

# X below a level's 2^p bins by an odd count (3 x 3 into 4 x 4): Fluid's windows of 1 padded by 1 pool 5 x 5
# positions; spp keeps the first 4 x 4, as Paddle 2.6.2's spp (its values, recorded: an empty window's max is
# -FLT_MAX). The gradient is refused (tests/kernels/test_structured_convolution_irregular.py).
_EMPTY = float(np.finfo(np.float32).min)
_LEVEL2 = [_EMPTY] * 5 + [0.0, 1.0, 2.0, _EMPTY, 3.0, 4.0, 5.0, _EMPTY, 6.0, 7.0, 8.0]
CASES.append(
    OpCase(
        "spp",
        {"X": np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)},
        lambda ins, a: {"Out": np.array([[8.0, 0.0, 2.0, 6.0, 8.0] + _LEVEL2], np.float32)},
        attrs={"pyramid_height": 3, "pooling_type": "max"},
        name="spp_x_below_its_bins",
    )
)

# global pooling ignores ksize and strides: Fluid's pool2d layer writes ksize [-1, -1] there
CASES.append(
    _pool_case(
        r(1, 2, 3, 4),
        {"pooling_type": "avg", "global_pooling": True, "ksize": [-1, -1], "strides": [-1, -1]},
        name="pool2d_global_ksize_minus_one",
    )
)


# -- windows Fluid 1.8.5's loops run unchecked (checked against the oracle): a ksize below 1 or a window in
# the padding is empty (max -FLT_MAX, the loop's start; avg 0 over the window's size, the product of its
# clipped extents or ksize's), a negative padding crops; adaptive with global_pooling is X's own size


def fluid_pool_ref(i, a):
    x = i["X"]
    dims, rank = x.shape[2:], x.ndim - 2
    ks, ss, p = list(a["ksize"]), list(a["strides"]), list(a["paddings"])
    pads = [v for q in p for v in (q, q)] if len(p) == rank else p
    if a["global_pooling"]:
        ks, pads = list(dims), [0] * (2 * rank)
    outs = [int((n + pads[2 * k] + pads[2 * k + 1] - ks[k]) / ss[k]) + 1 for k, n in enumerate(dims)]
    if a["adaptive"]:
        outs, pads = list(ks), [0] * (2 * rank)
    out = np.zeros(x.shape[:2] + tuple(outs))
    for o in np.ndindex(*outs):
        box, size = [], 1
        for k in range(rank):
            start = o[k] * ss[k] - pads[2 * k]
            s, e = max(start, 0), min(start + ks[k], dims[k])
            box.append(slice(s, max(e, s)))
            size *= (e - s) if a["exclusive"] else ks[k]
        win = x[(slice(None), slice(None)) + tuple(box)].reshape(x.shape[:2] + (-1,))
        at = (slice(None), slice(None)) + o
        if a["pooling_type"] == "max":
            out[at] = win.max(axis=-1) if win.shape[-1] else -3.4028234663852886e38
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                out[at] = win.sum(axis=-1) / size
    return {"Out": out}


_F = np.random.default_rng(7677)
_MAX, _AVG = {"pooling_type": "max"}, {"pooling_type": "avg"}
CASES += [
    OpCase(
        "pool2d",
        {"X": _F.permutation(60).reshape(1, 2, 5, 6) / 10.0},
        fluid_pool_ref,
        grad=("X",),
        attrs=dict(_MAX, ksize=[2, 2], strides=[1, 2], paddings=[-1, 0, 1, -2]),
        name="pool2d_negative_paddings",
    ),
    OpCase(
        "pool2d",
        {"X": _F.normal(size=(2, 3, 4, 4))},
        fluid_pool_ref,
        grad=("X",),
        attrs=dict(_AVG, ksize=[2, 2], strides=[2, 2], paddings=[2, 2], exclusive=False),
        name="pool2d_windows_in_padding",
    ),
    OpCase(
        "pool2d",
        {"X": _F.normal(size=(1, 2, 4, 4))},
        fluid_pool_ref,
        attrs=dict(_MAX, ksize=[0, -1], strides=[2, 2]),
        name="pool2d_ksize_below_1",
    ),
    OpCase(
        "pool2d",
        {"X": _F.normal(size=(1, 2, 4, 4))},
        fluid_pool_ref,
        attrs=dict(_AVG, ksize=[-1, -1], strides=[2, 2], paddings=[2, 2]),
        name="pool2d_avg_empty_windows",
    ),
    OpCase(
        "pool3d",
        {"X": _F.normal(size=(1, 2, 3, 4, 4))},
        fluid_pool_ref,
        attrs=dict(_AVG, ksize=[0, 2, -1], strides=[1, 1, 1], paddings=[0, 0, 0], exclusive=False),
        name="pool3d_ksize_below_1",
    ),
    OpCase(
        "pool2d",
        {"X": _F.permutation(40).reshape(2, 1, 4, 5) / 10.0},
        fluid_pool_ref,
        grad=("X",),
        attrs=dict(_MAX, ksize=[2, 2], strides=[1, 1], paddings=[0, 0], adaptive=True, global_pooling=True),
        name="pool2d_adaptive_global_max",
    ),
]
