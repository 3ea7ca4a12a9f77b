"""CPU kernels of ops/video.py: temporal_shift and its gradient, slices of the [N, T, C, H, W] view."""

import numpy as np


def _shift(x, attrs, forward):
    """Forward: each segment's channels below c1 take segment t - 1's values, those below c2 segment
    t + 1's (zeros past the ends); its gradient moves them back (forward=False)."""
    t = attrs["seg_num"]
    nt, c = x.shape[:2]
    c1, c2 = int(c * attrs["shift_ratio"]), int(c * 2 * attrs["shift_ratio"])
    v = x.reshape((nt // t, t) + x.shape[1:])
    out = np.zeros_like(v)
    later, earlier = (slice(1, None), slice(None, -1))
    a, b = (later, earlier) if forward else (earlier, later)
    out[:, a, :c1] = v[:, b, :c1]
    out[:, b, c1:c2] = v[:, a, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    return out.reshape(x.shape)


def temporal_shift(ins, attrs):
    return {"Out": _shift(ins["X"], attrs, True)}


def temporal_shift_grad(ins, attrs):
    return {"X@GRAD": _shift(ins["Out@GRAD"], attrs, False)}
