"""Op cases for ops/image.py's permutation ops and similarity_focus: pixel_shuffle, space_to_depth,
shuffle_channel, similarity_focus. References follow Fluid 1.8's unit tests (space_to_depth's is its
index formula); the resize and grid ops' cases are in cases_image_resize.py and cases_image_grid.py."""

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


_distinct = rng.permutation(96).reshape(2, 12, 2, 2) / 10.0  # no ties for maxout's gradient

CASES = [
    OpCase("pixel_shuffle", {"X": r(2, 8, 3, 2)}, _pixel_shuffle_ref, attrs={"upscale_factor": 2}, grad=("X",)),
    OpCase("space_to_depth", {"X": r(2, 8, 4, 6)}, _space_to_depth_ref, attrs={"blocksize": 2}, grad=("X",)),
    OpCase(
        "space_to_depth",
        {"X": r(1, 9, 3, 3)},
        _space_to_depth_ref,
        attrs={"blocksize": 3},
        name="space_to_depth_block3",
    ),
    OpCase("shuffle_channel", {"X": r(2, 6, 2, 3)}, _shuffle_ref, attrs={"group": 3}, grad=("X",)),
]


def _focus_ref(i, a):
    x, axis = i["X"], a["axis"]
    out = np.zeros_like(x)
    for b in range(x.shape[0]):
        for index in a["indexes"]:
            sl = np.take(x[b], index, axis=axis - 1)  # the 2-D map at that index
            pairs = sorted(
                ((sl[r, c], r, c) for r in range(sl.shape[0]) for c in range(sl.shape[1])), key=lambda t: -t[0]
            )
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
    OpCase(
        "similarity_focus",
        {"X": rng.permutation(60).reshape(1, 3, 4, 5).astype(np.float32)},
        _focus_ref,
        attrs={"axis": 3, "indexes": [4]},
        name="similarity_focus_axis3",
    ),
]

CASES += [
    OpCase(
        "fsp",
        {"X": rng.normal(size=(2, 3, 2, 3)), "Y": rng.normal(size=(2, 2, 2, 3))},
        lambda i, a: {"Out": np.einsum("nihw,njhw->nij", i["X"], i["Y"]) / 6},
        grad=("X", "Y"),
    ),
]
