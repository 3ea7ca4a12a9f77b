"""Op cases for pool3d (ops/pool3d.py): explicit loops with Fluid's window rule (start clipped at 0,
end at the dim; exclusive averages over the window's elements inside X) and adaptive windows."""
import math

import numpy as np

from op_test import OpCase

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
            if a["adaptive"]:
                s, e = int(math.floor(o[k] * dims[k] / outs[k])), int(math.ceil((o[k] + 1) * dims[k] / outs[k]))
            else:
                start = o[k] * ss[k] - pads[2 * k]
                s, e = max(start, 0), min(start + ks[k], dims[k])
            box.append(slice(s, e))
            volume *= (e - s) if (a["exclusive"] or a["adaptive"]) else ks[k]
        win = x[(slice(None), slice(None)) + tuple(box)]
        out[(slice(None), slice(None)) + o] = (win.max(axis=(2, 3, 4)) if a["pooling_type"] == "max"
                                               else win.sum(axis=(2, 3, 4)) / volume)
    return {"Out": out}


def _distinct(*shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) / 10.0      # no ties: max's gradient is exact


CASES = [
    OpCase("pool3d", {"X": _distinct(2, 2, 4, 5, 4)}, _ref, attrs={"ksize": [2, 3, 2], "strides": [2, 1, 2]},
           grad=("X",)),
    OpCase("pool3d", {"X": rng.normal(size=(1, 2, 5, 4, 4))}, _ref,
           attrs={"pooling_type": "avg", "ksize": [3, 3, 3], "strides": [2, 2, 2], "paddings": [1, 1, 1]},
           grad=("X",), name="pool3d_avg_exclusive_padded"),
    OpCase("pool3d", {"X": rng.normal(size=(1, 1, 5, 5, 3))}, _ref,
           attrs={"pooling_type": "avg", "ksize": [2, 2, 2], "strides": [2, 2, 2], "exclusive": False,
                  "ceil_mode": True}, grad=("X",), name="pool3d_avg_inclusive_ceil"),
    OpCase("pool3d", {"X": _distinct(1, 2, 5, 7, 3)}, _ref,
           attrs={"pooling_type": "max", "ksize": [3, 2, 2], "paddings": [1, 0, 1, 1, 0, 0], "strides": [2, 3, 1]},
           grad=("X",), name="pool3d_max_six_paddings"),
    OpCase("pool3d", {"X": rng.normal(size=(2, 2, 5, 7, 3))}, _ref,
           attrs={"pooling_type": "avg", "ksize": [2, 3, 2], "adaptive": True}, grad=("X",),
           name="pool3d_adaptive_avg"),
    OpCase("pool3d", {"X": _distinct(1, 3, 3, 4, 2)}, _ref, attrs={"global_pooling": True}, grad=("X",),
           name="pool3d_global_max"),
]
