"""Op cases for family detection_metric: detection_map on a case worked by hand (its values against
Fluid 1.8.5 over two batches, accumulated, are in tests/fluid/test_fluid_oracle.py)."""

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

# detection_map, worked by hand: one image; class 1 has two ground-truth boxes, of which the 0.9
# detection matches one (IoU 1) and the 0.8 detection none (it lies elsewhere): precision [1, 1/2],
# recall [1/2, 1/2], so its AP is 1/2 (integral); class 2 has one box and its one detection (0.7)
# overlaps it with IoU 0.0625/0.4375 < 0.5: AP 0. mAP = 1/4. The states list (score, flag) per class.

_DETS = LoDTensor(
    np.array([[1, 0.9, 0.1, 0.1, 0.5, 0.5], [1, 0.8, 0.6, 0.6, 0.9, 0.9], [2, 0.7, 0.0, 0.0, 0.5, 0.5]], "float32"),
    [[0, 3]],
)
_GTS = LoDTensor(
    np.array([[1, 0.1, 0.1, 0.5, 0.5], [1, 0.0, 0.6, 0.1, 0.9], [2, 0.25, 0.25, 0.75, 0.75]], "float32"), [[0, 3]]
)


def _detection_map_ref(i, a):
    return {
        "MAP": np.array([0.25], "float32"),
        "AccumPosCount": np.array([[0], [2], [1]], "int32"),
        "AccumTruePos": np.array([[0.9, 1], [0.8, 0], [0.7, 0]], "float32"),
        "AccumFalsePos": np.array([[0.9, 0], [0.8, 1], [0.7, 1]], "float32"),
    }


CASES = [
    OpCase(
        "detection_map",
        {"DetectRes": _DETS, "Label": _GTS},
        _detection_map_ref,
        attrs={"class_num": 3, "overlap_threshold": 0.5, "ap_type": "integral"},
    ),
]

# A class with ground truth but no detection counts with AP 0, as in Fluid's kernel (test_detection_map_op.py's
# TestDetectionMAPOp11PointWithClassNoTP): class 1's one detection matches its box (AP 1), class 2 has a box
# and no detection: mAP = (1 + 0) / 2.
_NO_TP_GTS = LoDTensor(np.array([[2, 0, 0.3, 0.3, 0.6, 0.5], [1, 0, 0.7, 0.1, 0.9, 0.3]], "float32"), [[0, 2]])
_NO_TP_DETS = LoDTensor(np.array([[1, 0.2, 0.8, 0.1, 1.0, 0.3]], "float32"), [[0, 1]])
CASES.append(
    OpCase(
        "detection_map",
        {"DetectRes": _NO_TP_DETS, "Label": _NO_TP_GTS},
        lambda i, a: {"MAP": np.array([0.5], "float32")},
        outputs=("MAP",),
        attrs={"class_num": 3, "overlap_threshold": 0.3, "ap_type": "11point", "evaluate_difficult": True},
        name="detection_map_class_without_detections",
    )
)
