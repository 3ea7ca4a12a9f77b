"""Video layers of Fluid 1.8's ``fluid.layers``: temporal_shift (ops/video.py)."""

from .helper import single
from .checks import FLOAT32_64, check_type, check_variable_and_dtype

__all__ = ["temporal_shift"]


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None):
    """The temporal shift of TSM: ``x`` [N * seg_num, C, H, W] as N clips of seg_num frames; the first
    shift_ratio of the channels take the previous frame's values, the next shift_ratio the following
    frame's (zeros past a clip's ends)."""
    check_variable_and_dtype(x, "x", FLOAT32_64, "temporal_shift")
    check_type(seg_num, "seg_num", int, "temporal_shift")
    check_type(shift_ratio, "shift_ratio", float, "temporal_shift")
    return single("temporal_shift", x, {"X": [x]}, {"seg_num": seg_num, "shift_ratio": shift_ratio}, name=name)
