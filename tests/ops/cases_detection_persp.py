"""Op cases for roi_perspective_transform: a scalar reference written from Fluid 1.8's
test_roi_perspective_transform_op.py (the perspective matrix from the quad's corners, the
point-in-quadrilateral test, bilinear sampling with Fluid's 1e-4 tolerances), with a float64
finite-difference gradient check wrt X."""
import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(71)
EPS = 1e-4


def _ge(a, b):
    return a > b or abs(a - b) < EPS


def _matrix(xs, ys, th, tw):
    sides = [math.hypot(xs[k] - xs[(k + 1) % 4], ys[k] - ys[(k + 1) % 4]) for k in range(4)]
    nh = max(2, th)
    nw = max(2, min(int(math.floor((sides[0] + sides[2]) / 2 * (nh - 1) / ((sides[1] + sides[3]) / 2) + 0.5)) + 1, tw))
    dx1, dx2, dx3 = xs[1] - xs[2], xs[3] - xs[2], xs[0] - xs[1] + xs[2] - xs[3]
    dy1, dy2, dy3 = ys[1] - ys[2], ys[3] - ys[2], ys[0] - ys[1] + ys[2] - ys[3]
    a31 = (dx3 * dy2 - dx2 * dy3) / (dx1 * dy2 - dx2 * dy1 + 1e-5) / (nw - 1)
    a32 = (dx1 * dy3 - dx3 * dy1) / (dx1 * dy2 - dx2 * dy1 + 1e-5) / (nh - 1)
    return [(xs[1] - xs[0] + a31 * (nw - 1) * xs[1]) / (nw - 1), (xs[3] - xs[0] + a32 * (nh - 1) * xs[3]) / (nh - 1),
            xs[0], (ys[1] - ys[0] + a31 * (nw - 1) * ys[1]) / (nw - 1),
            (ys[3] - ys[0] + a32 * (nh - 1) * ys[3]) / (nh - 1), ys[0], a31, a32, 1.0]


def _in_quad(x, y, xs, ys):
    edges = [(xs[k], ys[k], xs[(k + 1) % 4], ys[(k + 1) % 4]) for k in range(4)]
    for x0, y0, x1, y1 in edges:
        if abs(y0 - y1) < EPS:
            if abs(y - y0) < EPS and _ge(x, min(x0, x1)) and _ge(max(x0, x1), x):
                return True
        elif abs((y - y0) * (x1 - x0) / (y1 - y0) + x0 - x) < EPS and _ge(y, min(y0, y1)) and _ge(max(y0, y1), y):
            return True
    crossings = 0
    for x0, y0, x1, y1 in edges:
        if abs(y0 - y1) < EPS or _ge(min(y0, y1), y) or y - max(y0, y1) > EPS:
            continue
        ix = (y - y0) * (x1 - x0) / (y1 - y0) + x0
        if abs(ix - x) < EPS:
            return True
        crossings += ix - x > EPS
    return crossings % 2 == 1


def _sample(plane, x, y):
    h, w = plane.shape
    x, y = (0.0 if _ge(0, x) else x), (0.0 if _ge(0, y) else y)
    x0, y0 = math.floor(x), math.floor(y)
    x1, y1 = (x0 + 1, y0 + 1)
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    fx, fy = x - x0, y - y0
    return ((1 - fx) * (1 - fy) * plane[y0, x0] + (1 - fx) * fy * plane[y1, x0] + fx * fy * plane[y1, x1]
            + fx * (1 - fy) * plane[y0, x1])


def _ref(i, a):
    x, rois = i["X"], np.asarray(i["ROIs"])
    img = np.repeat(np.arange(len(i["ROIs"].lod()[0]) - 1), np.diff(i["ROIs"].lod()[0]))
    _, c, h, w = x.shape
    th, tw, s = a["transformed_height"], a["transformed_width"], a["spatial_scale"]
    out, mask = np.zeros((len(rois), c, th, tw)), np.zeros((len(rois), 1, th, tw), np.int32)
    mats = np.zeros((len(rois), 9))
    for r, roi in enumerate(rois):
        xs, ys = list(roi[0::2] * s), list(roi[1::2] * s)
        m = mats[r] = _matrix(xs, ys, th, tw)
        for oi in range(th):
            for oj in range(tw):
                d = m[6] * oj + m[7] * oi + m[8]
                sx, sy = (m[0] * oj + m[1] * oi + m[2]) / d, (m[3] * oj + m[4] * oi + m[5]) / d
                if not _in_quad(sx, sy, xs, ys) or _ge(-0.5, sx) or _ge(sx, w - 0.5) or _ge(-0.5, sy) \
                        or _ge(sy, h - 0.5):
                    continue
                mask[r, 0, oi, oj] = 1
                for ch in range(c):
                    out[r, ch, oi, oj] = _sample(x[img[r], ch], sx, sy)
    return {"Out": out.astype(x.dtype), "Mask": mask, "TransformMatrix": mats.astype(x.dtype)}


_QUADS = np.array([[1, 1, 7, 2, 8, 6, 2, 7],          # a tilted quadrilateral
                   [2, 3, 9, 3, 9, 8, 2, 8],          # an axis-aligned rectangle
                   [0.5, 4, 6.5, 0.7, 10.2, 7.9, 3.3, 11.6]], np.float64)

CASES = [
    OpCase("roi_perspective_transform", {"X": rng.normal(size=(2, 2, 8, 9)), "ROIs": LoDTensor(_QUADS, [[0, 1, 3]])},
           _ref, attrs={"transformed_height": 4, "transformed_width": 5, "spatial_scale": 1.0}, grad=("X",),
           loss_outputs=("Out",)),
    OpCase("roi_perspective_transform", {"X": rng.normal(size=(1, 3, 6, 7)), "ROIs": LoDTensor(_QUADS * 1.5, [[0, 3]])},
           _ref, attrs={"transformed_height": 3, "transformed_width": 6, "spatial_scale": 0.5}, grad=("X",),
           loss_outputs=("Out",), name="roi_perspective_transform_scaled"),
]
