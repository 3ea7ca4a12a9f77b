"""The meta rules of the NMS ops (ops/detection_nms.py): multiclass_nms, multiclass_nms2, multiclass_nms3,
matrix_nms, locality_aware_nms, retinanet_detection_output and nms. What they keep the values decide: every output
is a ``fresh`` variant whose rows are -1 (the arrays' own, their LoD the out-kernel's on the call's context,
kernels/structured.fresh_outputs). multiclass_nms2's variant is its meaning when nothing is kept, the op's
``paddle2`` fact: "fluid" (Fluid 1.8.5's Out and Index of shape [0]) or "paddle2" (Paddle 2.6's [0, 6], [0, 1])."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

_INDEX = np.dtype(np.int32)


def _fresh(outputs, variant="fresh"):
    return Meta(outputs, variant, fresh=True)


def image_offsets(ins, facts):
    """The rows of each image of 2-D Scores [M, C] (BBoxes [M, C, 4]): RoisNum's counts (multiclass_nms3), else
    the last level of BBoxes' LoD or Scores'; refused without either. None for 3-D Scores [N, C, M]."""
    if len(ins["Scores"].shape) == 3:
        return None
    if ins.get("RoisNum") is not None:
        return None  # (the counts are values: the out-kernel reads them)
    lod = facts.lod.get("BBoxes") or facts.lod.get("Scores")
    if not lod:
        raise PeError("multiclass_nms: 2-D Scores [M, C] need BBoxes [M, C, 4] with a LoD (boxes per image)")
    return tuple(int(v) for v in lod[-1])


def _rows(ins):
    """Out [-1, box width + 2] in BBoxes' dtype."""
    boxes = ins["BBoxes"]
    return ((-1, boxes.shape[-1] + 2), np.dtype(boxes.dtype))


def _rows_or_none(ins):
    """Out [-1, -1] in BBoxes' dtype: rows of the box width + 2, or Fluid's one row [[-1]] when none is kept."""
    return ((-1, -1), np.dtype(ins["BBoxes"].dtype))


def multiclass_nms_meta(attrs, ins, facts):
    """multiclass_nms: Out rows (label, score, box) of the images' kept boxes ([[-1]] when none is kept)."""
    image_offsets(ins, facts)
    return _fresh({"Out": _rows_or_none(ins)})


def multiclass_nms2_meta(attrs, ins, facts):
    """multiclass_nms2: Out and Index (int32 [-1, 1]); nothing kept: Fluid's [0] (no rows' rank: "fluid") or Paddle
    2.x's [0, 6], [0, 1] ("paddle2")."""
    image_offsets(ins, facts)
    variant = "paddle2" if facts.paddle2 else "fluid"
    return _fresh({"Out": _rows(ins), "Index": ((-1, 1), _INDEX)}, variant)


def multiclass_nms3_meta(attrs, ins, facts):
    """multiclass_nms3: Out, Index and NmsRoisNum (int32, a count per image)."""
    image_offsets(ins, facts)
    return _fresh({"Out": _rows(ins), "Index": ((-1, 1), _INDEX), "NmsRoisNum": ((-1,), _INDEX)})


def matrix_nms_meta(attrs, ins, facts):
    """matrix_nms: Out, Index and RoisNum (int32 [N], a count per image of Scores [N, C, M])."""
    images = ins["Scores"].shape[0]
    return _fresh({"Out": _rows(ins), "Index": ((-1, 1), _INDEX), "RoisNum": ((images,), _INDEX)})


def locality_aware_nms_meta(attrs, ins, facts):
    """locality_aware_nms: Out rows (label, score, box or polygon), [[-1]] when none is kept."""
    return _fresh({"Out": _rows_or_none(ins)})


def retinanet_detection_output_meta(attrs, ins, facts):
    """retinanet_detection_output: Out [-1, 6] in the first level's Scores' dtype."""
    return _fresh({"Out": ((-1, 6), np.dtype(ins["Scores"][0].dtype))})


def nms_meta(attrs, ins, facts):
    """nms: KeepBoxesIdxs (int64), the kept rows of Boxes."""
    return _fresh({"KeepBoxesIdxs": ((-1,), np.dtype(np.int64))})
