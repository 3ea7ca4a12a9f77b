"""The meta rule of detection_map (ops/detection_metric.py): a ``fresh`` variant, the (score, flag) lists' lengths
the values' (-1; their LoD the out-kernel's on the call's context); DetectRes and Label must hold as many images."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

_INT32 = np.dtype(np.int32)


def detection_map_meta(attrs, ins, facts):
    """detection_map: AccumPosCount int32 [class_num, 1], AccumTruePos and AccumFalsePos [-1, 2] (score, flag) in
    DetectRes' dtype, MAP float32 [1]; DetectRes and Label must hold as many images (LoD sequences)."""
    groups = []
    for slot in ("DetectRes", "Label"):
        lod = facts.lod.get(slot)
        groups.append(len(lod[-1]) - 1 if lod else 1)
    if groups[0] != groups[1]:
        raise PeError(f"detection_map: DetectRes holds {groups[0]} images, Label {groups[1]}")
    dtype = np.dtype(ins["DetectRes"].dtype)
    outputs = {
        "AccumPosCount": ((attrs["class_num"], 1), _INT32),
        "AccumTruePos": ((-1, 2), dtype),
        "AccumFalsePos": ((-1, 2), dtype),
        "MAP": ((1,), np.dtype(np.float32)),
    }
    return Meta(outputs, "fresh", fresh=True)
