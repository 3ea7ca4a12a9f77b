"""Meta rules of ops/video.py (structured kernels, shapes/structured.py): temporal_shift and its gradient, X as
[N, seg_num, C, H, W] (an NHWC X is transposed around the op's step, kernels/layout.py). One variant, "shift":
the out-kernel (kernels/cpu/video.py) writes each band of channels into the buffer handed; ``args``: the band
ends c1 = int(C * shift_ratio) and c2 = int(2 C shift_ratio)."""

import numpy as np

from .structured import Meta


def _shift_meta(attrs, x, slot):
    c = x.shape[1]
    c1, c2 = int(c * attrs["shift_ratio"]), int(c * 2 * attrs["shift_ratio"])
    return Meta({slot: (tuple(x.shape), np.dtype(x.dtype))}, "shift", args=(c1, c2))


def temporal_shift_meta(attrs, ins, facts):
    """temporal_shift: Out of X's shape and dtype."""
    return _shift_meta(attrs, ins["X"], "Out")


def temporal_shift_grad_meta(attrs, ins, facts):
    """temporal_shift_grad: X@GRAD of Out@GRAD's shape and dtype."""
    return _shift_meta(attrs, ins["Out@GRAD"], "X@GRAD")
