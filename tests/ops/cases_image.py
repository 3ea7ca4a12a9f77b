"""Op cases for ops/image_extra.py: pixel_shuffle, space_to_depth, shuffle_channel, affine_channel,
maxout, lrn. References follow Fluid 1.8's unit tests (space_to_depth's is its index formula)."""
import numpy as np

from op_test import OpCase

rng = np.random.default_rng(47)


def r(*shape):
    return rng.normal(size=shape)


def _pixel_shuffle_ref(i, a):
    x, f = i["X"], a["upscale_factor"]
    n, c, h, w = x.shape
    out = np.zeros((n, c // (f * f), h * f, w * f))
    for ch in range(c // (f * f)):
        for y in range(h * f):
            for z in range(w * f):
                out[:, ch, y, z] = x[:, ch * f * f + (y % f) * f + z % f, y // f, z // f]
    return {"Out": out}


def _space_to_depth_ref(i, a):
    x, bs = i["X"], a["blocksize"]
    b, c, h, w = x.shape
    out = np.zeros(x.size)
    out_c = c // (bs * bs)
    flat = x.reshape(-1)
    for index in range(x.size):
        bb, k, j, ii = np.unravel_index(index, x.shape)
        c2, offset = k % out_c, k // out_c
        w2, h2 = ii * bs + offset % bs, j * bs + offset // bs
        out[w2 + w * bs * (h2 + h * bs * (c2 + out_c * bb))] = flat[index]
    return {"Out": out.reshape(b, c * bs * bs, h // bs, w // bs)}


def _shuffle_ref(i, a):
    x, g = i["X"], a["group"]
    n, c, h, w = x.shape
    return {"Out": x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w)}


def _affine_ref(nhwc):
    def ref(i, a):
        shape = (1, 1, 1, -1) if nhwc else (1, -1, 1, 1)
        return {"Out": i["X"] * i["Scale"].reshape(shape) + i["Bias"].reshape(shape)}
    return ref


def _maxout_ref(i, a):
    x, g = i["X"], a["groups"]
    if a["axis"] % 4 == 3:
        n, h, w, c = x.shape
        return {"Out": x.reshape(n, h, w, c // g, g).max(axis=4)}
    n, c, h, w = x.shape
    return {"Out": x.reshape(n, c // g, g, h, w).max(axis=2)}


def _lrn_ref(i, a):
    x = i["X"]
    nhwc = a["data_format"] == "NHWC"
    xc = x.transpose(0, 3, 1, 2) if nhwc else x
    c = xc.shape[1]
    mid = np.full(xc.shape, a["k"], dtype=np.float64)
    pre = (a["n"] - 1) // 2
    for ch in range(c):
        for j in range(a["n"]):
            src = ch - pre + j
            if 0 <= src < c:
                mid[:, ch] += a["alpha"] * xc[:, src] ** 2
    out = xc * mid ** -a["beta"]
    if nhwc:
        out, mid = out.transpose(0, 2, 3, 1), mid.transpose(0, 2, 3, 1)
    return {"Out": out, "MidOut": mid}


_distinct = rng.permutation(96).reshape(2, 12, 2, 2) / 10.0     # no ties for maxout's gradient

CASES = [
    OpCase("pixel_shuffle", {"X": r(2, 8, 3, 2)}, _pixel_shuffle_ref, attrs={"upscale_factor": 2}, grad=("X",)),
    OpCase("space_to_depth", {"X": r(2, 8, 4, 6)}, _space_to_depth_ref, attrs={"blocksize": 2}, grad=("X",)),
    OpCase("space_to_depth", {"X": r(1, 9, 3, 3)}, _space_to_depth_ref, attrs={"blocksize": 3},
           name="space_to_depth_block3"),
    OpCase("shuffle_channel", {"X": r(2, 6, 2, 3)}, _shuffle_ref, attrs={"group": 3}, grad=("X",)),
    OpCase("affine_channel", {"X": r(2, 3, 4, 2), "Scale": r(3), "Bias": r(3)}, _affine_ref(False),
           grad=("X", "Scale", "Bias")),
    OpCase("affine_channel", {"X": r(2, 2, 3, 4), "Scale": r(4), "Bias": r(4)}, _affine_ref(True),
           attrs={"data_layout": "NHWC"}, grad=("X", "Scale", "Bias"), name="affine_channel_nhwc"),
    OpCase("maxout", {"X": _distinct}, _maxout_ref, attrs={"groups": 3}, grad=("X",)),
    OpCase("maxout", {"X": _distinct.transpose(0, 2, 3, 1).copy()}, _maxout_ref, attrs={"groups": 4, "axis": -1},
           grad=("X",), name="maxout_nhwc"),
    OpCase("lrn", {"X": r(2, 6, 3, 2)}, _lrn_ref, attrs={"n": 5, "k": 1.0, "alpha": 0.1, "beta": 0.75},
           grad=("X",), loss_outputs=("Out",)),
    OpCase("lrn", {"X": r(2, 2, 3, 5)}, _lrn_ref,
           attrs={"n": 4, "k": 2.0, "alpha": 0.3, "beta": 0.5, "data_format": "NHWC"}, grad=("X",),
           loss_outputs=("Out",), name="lrn_nhwc_even_window"),
]


def _adaptive_ref(i, a):
    x, (oh, ow) = i["X"], a["ksize"]
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow))
    for p in range(oh):
        for q in range(ow):
            hs, he = int(np.floor(p * h / oh)), int(np.ceil((p + 1) * h / oh))
            ws, we = int(np.floor(q * w / ow)), int(np.ceil((q + 1) * w / ow))
            win = x[:, :, hs:he, ws:we]
            out[:, :, p, q] = win.max(axis=(2, 3)) if a["pooling_type"] == "max" else win.mean(axis=(2, 3))
    return {"Out": out}


CASES += [
    OpCase("pool2d", {"X": r(2, 3, 5, 7)}, _adaptive_ref, attrs={"adaptive": True, "ksize": [3, 2],
                                                                "pooling_type": "avg"},
           grad=("X",), name="pool2d_adaptive_avg_overlapping"),
    OpCase("pool2d", {"X": rng.permutation(2 * 2 * 6 * 4).reshape(2, 2, 6, 4) / 7.0}, _adaptive_ref,
           attrs={"adaptive": True, "ksize": [4, 3], "pooling_type": "max"}, grad=("X",),
           name="pool2d_adaptive_max"),
    OpCase("pool2d", {"X": r(1, 2, 4, 4)}, _adaptive_ref, attrs={"adaptive": True, "ksize": [1, 1],
                                                                "pooling_type": "avg"},
           name="pool2d_adaptive_global"),
]


def _focus_ref(i, a):
    x, axis = i["X"], a["axis"]
    out = np.zeros_like(x)
    for b in range(x.shape[0]):
        for index in a["indexes"]:
            sl = np.take(x[b], index, axis=axis - 1)         # the 2-D map at that index
            pairs = sorted(((sl[r, c], r, c) for r in range(sl.shape[0]) for c in range(sl.shape[1])),
                           key=lambda t: -t[0])
            rows, cols = set(), set()
            for _, r, c in pairs:
                if r in rows or c in cols:
                    continue
                rows.add(r)
                cols.add(c)
                idx = [b, slice(None), slice(None), slice(None)]
                other = [d for d in (1, 2, 3) if d != axis]
                idx[other[0]], idx[other[1]] = r, c
                out[tuple(idx)] = 1
    return {"Out": out}


CASES += [
    OpCase("similarity_focus", {"X": _distinct.reshape(2, 3, 4, 4)}, _focus_ref, attrs={"axis": 1, "indexes": [0, 2]}),
    OpCase("similarity_focus", {"X": rng.permutation(60).reshape(1, 3, 4, 5).astype(np.float32)}, _focus_ref,
           attrs={"axis": 3, "indexes": [4]}, name="similarity_focus_axis3"),
]
