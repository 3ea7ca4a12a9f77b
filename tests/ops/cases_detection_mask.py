"""Op case for generate_mask_labels: the foreground rois, their rows and class-slotted mask targets
from a reference that picks each roi's object by box IoU and rasterizes by testing pixel centres
against the polygons (even-odd); the polygons' edges stay at least 0.35 px from every pixel centre,
where Fluid's COCO rasterization and the centre test agree. An image without foreground rois gives
its first roi with an all -1 target."""
import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor


def _inside(px, py, poly):
    hit = False
    for (x0, y0), (x1, y1) in zip(poly, np.roll(poly, -1, axis=0)):
        if (y0 > py) != (y1 > py) and px < x0 + (py - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def _iou(a, b):
    iw, ih = min(a[2], b[2]) - max(a[0], b[0]) + 1, min(a[3], b[3]) - max(a[1], b[1]) + 1
    if iw <= 0 or ih <= 0:
        return 0.0
    return iw * ih / ((a[2] - a[0] + 1) * (a[3] - a[1] + 1) + (b[2] - b[0] + 1) * (b[3] - b[1] + 1) - iw * ih)


def _ref(i, a):
    m, k = a["resolution"], a["num_classes"]
    segms, lod = np.asarray(i["GtSegms"]), i["GtSegms"].lod()
    classes, crowd = np.asarray(i["GtClasses"]).reshape(-1), np.asarray(i["IsCrowd"]).reshape(-1)
    rois, labels = np.asarray(i["Rois"]), np.asarray(i["LabelsInt32"]).reshape(-1)
    rl = i["Rois"].lod()[0]
    out_rois, rows, targets = [], [], []
    for im in range(len(rl) - 1):
        objects = [[segms[lod[2][p]:lod[2][p + 1]] for p in range(lod[1][o], lod[1][o + 1])]
                   for o in range(lod[0][im], lod[0][im + 1]) if classes[o] > 0 and crowd[o] == 0]
        fg = [r for r in range(rl[im], rl[im + 1]) if labels[r] > 0]
        if not fg:
            out_rois.append(rois[rl[im]])
            rows.append(next(r for r in range(rl[im], rl[im + 1]) if labels[r] == 0) - rl[im])
            targets.append(np.full(k * m * m, -1))
            continue
        scale = i["ImInfo"][im][2]
        for r in fg:
            roi = rois[r] / scale
            boxes = [np.r_[np.concatenate(o).min(axis=0), np.concatenate(o).max(axis=0)] for o in objects]
            best = int(np.argmax([_iou(roi, b) for b in boxes]))
            w, h = max(roi[2] - roi[0], 1), max(roi[3] - roi[1], 1)
            mask = np.zeros((m, m), int)
            for poly in objects[best]:
                rel = (poly - roi[:2]) * m / [w, h]
                for y in range(m):
                    for x in range(m):
                        mask[y, x] |= _inside(x + 0.5, y + 0.5, rel)
            t = np.full(k * m * m, -1)
            t[labels[r] * m * m:(labels[r] + 1) * m * m] = mask.reshape(-1)
            out_rois.append(rois[r])
            rows.append(r - rl[im])
            targets.append(t)
    return {"MaskRois": np.array(out_rois).reshape(-1, 4), "RoiHasMaskInt32": np.array(rows, np.int32).reshape(-1, 1),
            "MaskInt32": np.array(targets, np.int32).reshape(-1, k * m * m)}


# image 0: a triangle (class 1), an L of two rectangles (class 2), a crowd square; image 1: one square
_POLYS = [[[0, 0], [16, 0], [0, 16]],
          [[18, 2], [22, 2], [22, 14], [18, 14]], [[22, 10], [30, 10], [30, 14], [22, 14]],
          [[4, 20], [12, 20], [12, 28], [4, 28]],
          [[2, 2], [10, 2], [10, 10], [2, 10]]]
_POINTS = np.array([p for poly in _POLYS for p in poly], np.float32)
_SEGMS = LoDTensor(_POINTS, [[0, 3, 4], [0, 1, 3, 4, 5], [0, 3, 7, 11, 15, 19]])

CASES = [
    OpCase("generate_mask_labels",
           {"ImInfo": np.array([[32, 32, 1.0], [40, 40, 2.0]], np.float32),
            "GtClasses": LoDTensor(np.array([[1], [2], [1], [2]], np.int32), [[0, 3, 4]]),
            "IsCrowd": LoDTensor(np.array([[0], [0], [1], [0]], np.int32), [[0, 3, 4]]), "GtSegms": _SEGMS,
            "Rois": LoDTensor(np.array([[0, 0, 16, 16], [16, 0, 32, 16], [2, 2, 14, 14], [20, 20, 28, 28],
                                        [4, 4, 20, 20], [0, 0, 8, 8]], np.float32), [[0, 4, 6]]),
            "LabelsInt32": LoDTensor(np.array([[1], [2], [0], [1], [0], [0]], np.int32), [[0, 4, 6]])},
           _ref, attrs={"num_classes": 3, "resolution": 8}),
]
