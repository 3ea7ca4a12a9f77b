"""Op cases for ops/video.py: temporal_shift against Fluid's test_temporal_shift_op.py formulation."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(48)


def r(*shape):
    return rng.normal(size=shape)


def _temporal_shift_ref(i, a):
    """Fluid's test_temporal_shift_op.py loop: pad one segment each side, then pick per channel."""
    x, t = i["X"], a["seg_num"]
    nt, c, h, w = x.shape
    v = np.pad(x.reshape(nt // t, t, c, h, w), ((0, 0), (1, 1), (0, 0), (0, 0), (0, 0)))
    c1, c2 = int(c * a["shift_ratio"]), int(c * 2 * a["shift_ratio"])
    out = np.concatenate([v[:, :t, :c1], v[:, 2 : t + 2, c1:c2], v[:, 1 : t + 1, c2:]], axis=2)
    return {"Out": out.reshape(x.shape)}


CASES = [
    OpCase(
        "temporal_shift",
        {"X": r(6, 4, 2, 2)},
        _temporal_shift_ref,
        attrs={"seg_num": 3, "shift_ratio": 0.25},
        grad=("X",),
    ),
    OpCase(
        "temporal_shift",
        {"X": r(4, 7, 1, 3)},
        _temporal_shift_ref,
        attrs={"seg_num": 2, "shift_ratio": 0.3},
        grad=("X",),
        name="temporal_shift_ratio_0_3",
    ),
]
