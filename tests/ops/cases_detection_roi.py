"""Op cases for roi_pool, roi_align, psroi_pool, prroi_pool: direct loops over rois, channels and bins
following Fluid 1.8's test_roi_pool_op.py, test_roi_align_op.py, test_psroi_pool_op.py and
test_prroi_pool_op.py (prroi_pool's integral taken numerically here, by a fine midpoint rule over the
bilinear surface, so the closed form the kernels use is checked against its definition)."""
import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(41)


def _images(inputs, counts_slot):
    rois = np.asarray(inputs["ROIs"])
    if counts_slot in inputs:
        counts = np.asarray(inputs[counts_slot]).reshape(-1)
    elif isinstance(inputs["ROIs"], LoDTensor):
        counts = np.diff(inputs["ROIs"].lod()[-1])
    else:                                   # one image
        counts = np.array([len(rois)])
    return rois, np.repeat(np.arange(counts.size), counts)


def _c_round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def _roi_pool_ref(i, a):
    x = i["X"]
    rois, img = _images(i, "RoisNum")
    n, c, h, w = x.shape
    ph, pw, s = a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    out = np.zeros((len(rois), c, ph, pw), x.dtype)
    arg = np.full(out.shape, -1, np.int64)
    for r, (x1, y1, x2, y2) in enumerate(rois):
        x1, y1, x2, y2 = (_c_round(v * s) for v in (x1, y1, x2, y2))
        bh = np.float32(max(y2 - y1 + 1, 1)) / np.float32(ph)
        bw = np.float32(max(x2 - x1 + 1, 1)) / np.float32(pw)
        for p in range(ph):
            for q in range(pw):
                hs, he = (min(max(int(f(np.float32(k) * bh)) + y1, 0), h)
                          for f, k in ((math.floor, p), (math.ceil, p + 1)))
                ws, we = (min(max(int(f(np.float32(k) * bw)) + x1, 0), w)
                          for f, k in ((math.floor, q), (math.ceil, q + 1)))
                if he <= hs or we <= ws:
                    continue
                win = x[img[r], :, hs:he, ws:we].reshape(c, -1)
                k = win.argmax(axis=1)
                out[r, :, p, q] = win.max(axis=1)
                arg[r, :, p, q] = (hs + k // (we - ws)) * w + ws + k % (we - ws)
    return {"Out": out, "Argmax": arg}


def _bilinear(plane, y, x):
    h, w = plane.shape
    if y < -1 or y > h or x < -1 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= h - 1:
        yl = yh = h - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= w - 1:
        xl = xh = w - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    return ((1 - ly) * (1 - lx) * plane[yl, xl] + (1 - ly) * lx * plane[yl, xh] + ly * (1 - lx) * plane[yh, xl]
            + ly * lx * plane[yh, xh])


def _roi_align_ref(i, a):
    x = i["X"]
    rois, img = _images(i, "RoisNum")
    c = x.shape[1]
    ph, pw, s, ratio = a["pooled_height"], a["pooled_width"], a["spatial_scale"], a["sampling_ratio"]
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(rois):
        xmin, ymin, xmax, ymax = roi * s
        rw, rh = max(xmax - xmin, 1.0), max(ymax - ymin, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for ch in range(c):
            for p in range(ph):
                for q in range(pw):
                    samples = [_bilinear(x[img[r], ch], ymin + p * bh + (iy + 0.5) * bh / gh,
                                         xmin + q * bw + (ix + 0.5) * bw / gw)
                               for iy in range(gh) for ix in range(gw)]
                    out[r, ch, p, q] = np.mean(samples)
    return {"Out": out.astype(x.dtype)}


def _psroi_ref(i, a):
    x = i["X"]
    rois, img = _images(i, None)
    h, w = x.shape[2:]
    oc, ph, pw, s = a["output_channels"], a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    out = np.zeros((len(rois), oc, ph, pw))
    for r, roi in enumerate(rois):
        sw, sh = _c_round(roi[0]) * s, _c_round(roi[1]) * s
        ew, eh = (_c_round(roi[2]) + 1.0) * s, (_c_round(roi[3]) + 1.0) * s
        bh, bw = max(eh - sh, 0.1) / ph, max(ew - sw, 0.1) / pw
        for k in range(oc):
            for p in range(ph):
                for q in range(pw):
                    hs, he = min(max(math.floor(p * bh + sh), 0), h), min(max(math.ceil((p + 1) * bh + sh), 0), h)
                    ws, we = min(max(math.floor(q * bw + sw), 0), w), min(max(math.ceil((q + 1) * bw + sw), 0), w)
                    if he > hs and we > ws:
                        out[r, k, p, q] = x[img[r], (k * ph + p) * pw + q, hs:he, ws:we].mean()
    return {"Out": out.astype(x.dtype)}


def _surface(plane, y, x):
    """Bilinear interpolation of the plane at (y, x), zero outside it (PrRoI pooling's surface)."""
    h, w = plane.shape
    y0, x0 = math.floor(y), math.floor(x)
    total = 0.0
    for yy in (y0, y0 + 1):
        for xx in (x0, x0 + 1):
            if 0 <= yy < h and 0 <= xx < w:
                total += plane[yy, xx] * (1 - abs(y - yy)) * (1 - abs(x - xx))
    return total


def _cuts(lo, hi):
    """[lo, hi] cut at the integer lines inside it."""
    return np.r_[lo, np.arange(math.floor(lo) + 1, math.ceil(hi)), hi]


_GAUSS = (0.5 - 0.5 / math.sqrt(3), 0.5 + 0.5 / math.sqrt(3))


def _integral(plane, y0, y1, x0, x1):
    """The integral of the surface over [y0, y1] x [x0, x1]: on each piece between integer lines the
    surface is bilinear, where the 2x2 Gauss-Legendre rule is exact."""
    total = 0.0
    yc, xc = _cuts(y0, y1), _cuts(x0, x1)
    for ya, yb in zip(yc[:-1], yc[1:]):
        for xa, xb in zip(xc[:-1], xc[1:]):
            vals = [_surface(plane, ya + (yb - ya) * gy, xa + (xb - xa) * gx) for gy in _GAUSS for gx in _GAUSS]
            total += np.mean(vals) * (yb - ya) * (xb - xa)
    return total


def _prroi_ref(i, a):
    x = i["X"]
    rois, img = _images(i, "BatchRoINums")
    c = x.shape[1]
    ph, pw, s = a["pooled_height"], a["pooled_width"], a["spatial_scale"]
    out = np.zeros((len(rois), c, ph, pw))
    for r, roi in enumerate(rois):
        xs, ys, xe, ye = roi * s
        bh, bw = max(ye - ys, 0) / ph, max(xe - xs, 0) / pw
        if bh * bw <= 0:
            continue
        for ch in range(c):
            for p in range(ph):
                for q in range(pw):
                    out[r, ch, p, q] = _integral(x[img[r], ch], ys + p * bh, ys + (p + 1) * bh, xs + q * bw,
                                                 xs + (q + 1) * bw) / (bh * bw)
    return {"Out": out.astype(x.dtype)}


def _x(*shape):
    """Distinct values 0.1 apart (shuffled): no ties, so each max bin has one arg max."""
    return (rng.permutation(int(np.prod(shape))) * 0.1 + rng.uniform(0, 0.01, shape).reshape(-1)).reshape(shape)


def _rois(boxes, lod=None):
    boxes = np.asarray(boxes, dtype=np.float64)
    return LoDTensor(boxes, lod) if lod else boxes


_BOXES = [[0, 0, 7, 5], [2.6, 1.2, 9.4, 10.7], [4, 2, 15, 11], [1, 3, 3, 4], [6.3, 0.5, 13.1, 6.2]]
_FAR = [[1, 1, 6, 4], [20, 2, 26, 9], [-3, -2, 2.5, 3]]          # past the right edge; reaching over the top-left

CASES = [
    OpCase("roi_pool", {"X": _x(2, 3, 6, 8), "ROIs": _rois(_BOXES, [[0, 2, 5]])}, _roi_pool_ref,
           attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5}, grad=("X",)),
    OpCase("roi_pool", {"X": _x(2, 2, 5, 7), "ROIs": _rois(_FAR), "RoisNum": np.array([1, 2], np.int32)},
           _roi_pool_ref, attrs={"pooled_height": 3, "pooled_width": 2, "spatial_scale": 1.0}, grad=("X",),
           name="roi_pool_rois_num_outside"),
    OpCase("roi_align", {"X": rng.normal(size=(2, 3, 6, 8)), "ROIs": _rois(_BOXES, [[0, 3, 5]])}, _roi_align_ref,
           attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5, "sampling_ratio": -1}, grad=("X",)),
    OpCase("roi_align", {"X": rng.normal(size=(2, 2, 5, 7)), "ROIs": _rois(_FAR),
                         "RoisNum": np.array([2, 1], np.int32)}, _roi_align_ref,
           attrs={"pooled_height": 3, "pooled_width": 2, "spatial_scale": 1.0, "sampling_ratio": 2}, grad=("X",),
           name="roi_align_rois_num_ratio2"),
    OpCase("roi_align", {"X": rng.normal(size=(1, 2, 4, 5)), "ROIs": _rois([[0.5, 0.5, 3.5, 2.5], [1, 1, 1.2, 1.1]])},
           _roi_align_ref, attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0}, grad=("X",),
           name="roi_align_one_image_no_lod"),
    OpCase("psroi_pool", {"X": rng.normal(size=(2, 12, 6, 8)), "ROIs": _rois(_BOXES, [[0, 2, 5]])}, _psroi_ref,
           attrs={"output_channels": 2, "pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5}, grad=("X",)),
    OpCase("psroi_pool", {"X": rng.normal(size=(2, 4, 5, 7)), "ROIs": _rois(_FAR, [[0, 1, 3]])}, _psroi_ref,
           attrs={"output_channels": 1, "pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0}, grad=("X",),
           name="psroi_pool_outside"),
    OpCase("prroi_pool", {"X": rng.normal(size=(2, 3, 6, 8)), "ROIs": _rois(_BOXES, [[0, 2, 5]])}, _prroi_ref,
           attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5}, grad=("X",)),
    OpCase("prroi_pool", {"X": rng.normal(size=(2, 2, 5, 7)), "ROIs": _rois(_FAR + [[2, 2, 2, 5]]),
                          "BatchRoINums": np.array([3, 1], np.int64)}, _prroi_ref,
           attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0}, grad=("X",),
           name="prroi_pool_batch_roi_nums"),
]
