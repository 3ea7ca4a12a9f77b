"""roi_perspective_transform's arithmetic per output element, written once and compiled twice (as
roi.py): ``make(jit, add)`` for numba.njit (cpu/_persp_loops.py) or cuda.jit(device=True)
(kernels/cuda/detection_roi.py). Follows Fluid 1.8's roi_perspective_transform_op.cc: output pixel
(i, j) of roi r reads X at the perspective map of (j, i) (TransformMatrix[r], from ``matrices``
below), bilinearly, where that point is inside the roi's quadrilateral and the map (1e-4 tolerances
as Fluid's)."""

import math

import numpy as np


def matrices(rois, th, tw, scale):
    """[R, 9]: each quadrilateral (x0, y0, ..., x3, y3, scaled) as the perspective map from the
    output grid, fitted to a normalized width from the quad's aspect (Fluid's get_transform_matrix)."""
    x = rois[:, 0::2] * scale
    y = rois[:, 1::2] * scale
    side = [np.hypot(x[:, k] - x[:, (k + 1) % 4], y[:, k] - y[:, (k + 1) % 4]) for k in range(4)]
    est_h, est_w = (side[1] + side[3]) / 2.0, (side[0] + side[2]) / 2.0
    nh = max(2, th)
    nw = np.maximum(2, np.minimum(np.floor(est_w * (nh - 1) / est_h + 0.5) + 1, tw))
    dx1, dx2, dx3 = x[:, 1] - x[:, 2], x[:, 3] - x[:, 2], x[:, 0] - x[:, 1] + x[:, 2] - x[:, 3]
    dy1, dy2, dy3 = y[:, 1] - y[:, 2], y[:, 3] - y[:, 2], y[:, 0] - y[:, 1] + y[:, 2] - y[:, 3]
    m = np.zeros((len(x), 9))
    den = dx1 * dy2 - dx2 * dy1 + 1e-5
    m[:, 6] = (dx3 * dy2 - dx2 * dy3) / den / (nw - 1)
    m[:, 7] = (dx1 * dy3 - dx3 * dy1) / den / (nh - 1)
    m[:, 8] = 1
    m[:, 3] = (y[:, 1] - y[:, 0] + m[:, 6] * (nw - 1) * y[:, 1]) / (nw - 1)
    m[:, 4] = (y[:, 3] - y[:, 0] + m[:, 7] * (nh - 1) * y[:, 3]) / (nh - 1)
    m[:, 5] = y[:, 0]
    m[:, 0] = (x[:, 1] - x[:, 0] + m[:, 6] * (nw - 1) * x[:, 1]) / (nw - 1)
    m[:, 1] = (x[:, 3] - x[:, 0] + m[:, 7] * (nh - 1) * x[:, 3]) / (nh - 1)
    m[:, 2] = x[:, 0]
    return m


def make(jit, add):
    inside = _quad(jit)
    return _pixel(jit, add, inside)


def _quad(jit):
    @jit
    def on_edge(x, y, xs, ys, xe, ye):
        if abs(ys - ye) < 1e-4:
            return abs(y - ys) < 1e-4 and abs(y - ye) < 1e-4 and x - min(xs, xe) > -1e-4 and x - max(xs, xe) < 1e-4
        ix = (y - ys) * (xe - xs) / (ye - ys) + xs
        return abs(ix - x) < 1e-4 and y - min(ys, ye) > -1e-4 and y - max(ys, ye) < 1e-4

    @jit
    def inside(x, y, rois, r, scale):
        """(x, y) on or inside the quadrilateral of roi r (Fluid's in_quad: edges, then crossings)."""
        crossings = 0
        for k in range(4):
            xs, ys = rois[8 * r + 2 * k] * scale, rois[8 * r + 2 * k + 1] * scale
            xe, ye = rois[8 * r + (2 * k + 2) % 8] * scale, rois[8 * r + (2 * k + 3) % 8] * scale
            if on_edge(x, y, xs, ys, xe, ye):
                return True
        for k in range(4):
            xs, ys = rois[8 * r + 2 * k] * scale, rois[8 * r + 2 * k + 1] * scale
            xe, ye = rois[8 * r + (2 * k + 2) % 8] * scale, rois[8 * r + (2 * k + 3) % 8] * scale
            if abs(ys - ye) < 1e-4 or (y < min(ys, ye) or abs(y - min(ys, ye)) < 1e-4) or y - max(ys, ye) > 1e-4:
                continue
            ix = (y - ys) * (xe - xs) / (ye - ys) + xs
            if abs(ix - x) < 1e-4:
                return True
            if ix - x > 1e-4:
                crossings += 1
        return crossings % 2 == 1

    return inside


def _pixel(jit, add, inside):
    @jit
    def source(m, rois, r, i, j, scale, h, w):
        """(in the quad and the map, the source point's corners and weights)."""
        u = m[9 * r] * j + m[9 * r + 1] * i + m[9 * r + 2]
        v = m[9 * r + 3] * j + m[9 * r + 4] * i + m[9 * r + 5]
        d = m[9 * r + 6] * j + m[9 * r + 7] * i + m[9 * r + 8]
        sx, sy = u / d, v / d
        if (
            not inside(sx, sy, rois, r, scale)
            or (-0.5 - sx > -1e-4)
            or (sx - (w - 0.5) > -1e-4)
            or (-0.5 - sy > -1e-4)
            or (sy - (h - 0.5) > -1e-4)
        ):
            return False, 0, 0, 0, 0, 0.0, 0.0
        sx = 0.0 if -sx > -1e-4 else sx
        sy = 0.0 if -sy > -1e-4 else sy
        x0, y0 = int(math.floor(sx)), int(math.floor(sy))
        if x0 - (w - 1) > -1e-4:
            x0 = w - 1
            x1 = x0
            sx = float(x0)
        else:
            x1 = x0 + 1
        if y0 - (h - 1) > -1e-4:
            y0 = h - 1
            y1 = y0
            sy = float(y0)
        else:
            y1 = y0 + 1
        return True, x0, x1, y0, y1, sx - x0, sy - y0

    @jit
    def at(x, rois, m, bid, o, c, h, w, th, tw, scale):
        """(Out[o], Mask of its pixel)."""
        j, i, r = o % tw, (o // tw) % th, o // (tw * th * c)
        ok, x0, x1, y0, y1, fx, fy = source(m, rois, r, i, j, scale, h, w)
        if not ok:
            return 0.0, 0
        base = (bid[r] * c + (o // (tw * th)) % c) * h * w
        return (
            (1 - fx) * (1 - fy) * x[base + y0 * w + x0]
            + (1 - fx) * fy * x[base + y1 * w + x0]
            + fx * fy * x[base + y1 * w + x1]
            + fx * (1 - fy) * x[base + y0 * w + x1]
        ), 1

    @jit
    def back(g, rois, m, bid, o, c, h, w, th, tw, scale, dx):
        j, i, r = o % tw, (o // tw) % th, o // (tw * th * c)
        ok, x0, x1, y0, y1, fx, fy = source(m, rois, r, i, j, scale, h, w)
        if ok:
            base = (bid[r] * c + (o // (tw * th)) % c) * h * w
            add(dx, base + y0 * w + x0, (1 - fx) * (1 - fy) * g)
            add(dx, base + y1 * w + x0, (1 - fx) * fy * g)
            add(dx, base + y1 * w + x1, fx * fy * g)
            add(dx, base + y0 * w + x1, fx * (1 - fy) * g)

    return {"at": at, "back": back}
