"""Op cases for roi_pool, roi_align, psroi_pool, prroi_pool: direct loops over rois, channels and bins
following Fluid 1.8's test_roi_pool_op.py, test_roi_align_op.py, test_psroi_pool_op.py and
test_prroi_pool_op.py (prroi_pool's integral taken numerically here, by a fine midpoint rule over the
bilinear surface, so the closed form the kernels use is checked against its definition).
deformable_psroi_pooling: a direct loop over rois, channels, bins and samples following Fluid 1.8's
test_deformable_psroi_pooling.py, with float64 gradient checks wrt Input and Trans (samples kept off
the integer grid lines and the map's edges, where the bilinear sample has a kink).
roi_perspective_transform: a scalar reference written from Fluid 1.8's
test_roi_perspective_transform_op.py (the perspective matrix from the quad's corners, the
point-in-quadrilateral test, bilinear sampling with Fluid's 1e-4 tolerances), with a float64
finite-difference gradient check wrt X."""

import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(41)


def _images(inputs, counts_slot):
    rois = np.asarray(inputs["ROIs"])
    if counts_slot in inputs:
        counts = np.asarray(inputs[counts_slot]).reshape(-1)
    elif "RoisLod" in inputs:  # Fluid 1.8's offsets [N + 1]
        counts = np.diff(np.asarray(inputs["RoisLod"]).reshape(-1))
    elif isinstance(inputs["ROIs"], LoDTensor):
        counts = np.diff(inputs["ROIs"].lod()[-1])
    else:  # one image
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
                hs, he = (
                    min(max(int(f(np.float32(k) * bh)) + y1, 0), h) for f, k in ((math.floor, p), (math.ceil, p + 1))
                )
                ws, we = (
                    min(max(int(f(np.float32(k) * bw)) + x1, 0), w) for f, k in ((math.floor, q), (math.ceil, q + 1))
                )
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
    return (
        (1 - ly) * (1 - lx) * plane[yl, xl]
        + (1 - ly) * lx * plane[yl, xh]
        + ly * (1 - lx) * plane[yh, xl]
        + ly * lx * plane[yh, xh]
    )


def _roi_align_ref(i, a):
    x = i["X"]
    rois, img = _images(i, "RoisNum")
    c = x.shape[1]
    ph, pw, s, ratio = a["pooled_height"], a["pooled_width"], a["spatial_scale"], a["sampling_ratio"]
    out = np.zeros((len(rois), c, ph, pw))
    aligned = a.get("aligned", False)  # (Paddle 2.x's: the roi shifted by half a cell, not widened to one)
    for r, roi in enumerate(rois):
        xmin, ymin, xmax, ymax = roi * s - (0.5 if aligned else 0.0)
        rw, rh = xmax - xmin, ymax - ymin
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else math.ceil(rh / ph)
        gw = ratio if ratio > 0 else math.ceil(rw / pw)
        for ch in range(c):
            for p in range(ph):
                for q in range(pw):
                    samples = [
                        _bilinear(
                            x[img[r], ch], ymin + p * bh + (iy + 0.5) * bh / gh, xmin + q * bw + (ix + 0.5) * bw / gw
                        )
                        for iy in range(gh)
                        for ix in range(gw)
                    ]
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
                    out[r, ch, p, q] = _integral(
                        x[img[r], ch], ys + p * bh, ys + (p + 1) * bh, xs + q * bw, xs + (q + 1) * bw
                    ) / (bh * bw)
    return {"Out": out.astype(x.dtype)}


def _x(*shape):
    """Distinct values 0.1 apart (shuffled): no ties, so each max bin has one arg max."""
    return (rng.permutation(int(np.prod(shape))) * 0.1 + rng.uniform(0, 0.01, shape).reshape(-1)).reshape(shape)


def _rois(boxes, lod=None):
    boxes = np.asarray(boxes, dtype=np.float64)
    return LoDTensor(boxes, lod) if lod else boxes


_BOXES = [[0, 0, 7, 5], [2.6, 1.2, 9.4, 10.7], [4, 2, 15, 11], [1, 3, 3, 4], [6.3, 0.5, 13.1, 6.2]]
_FAR = [[1, 1, 6, 4], [20, 2, 26, 9], [-3, -2, 2.5, 3]]  # past the right edge; reaching over the top-left

CASES = [
    OpCase(
        "roi_pool",
        {"X": _x(2, 3, 6, 8), "ROIs": _rois(_BOXES, [[0, 2, 5]])},
        _roi_pool_ref,
        attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5},
        grad=("X",),
    ),
    OpCase(
        "roi_pool",
        {"X": _x(2, 2, 5, 7), "ROIs": _rois(_FAR), "RoisNum": np.array([1, 2], np.int32)},
        _roi_pool_ref,
        attrs={"pooled_height": 3, "pooled_width": 2, "spatial_scale": 1.0},
        grad=("X",),
        name="roi_pool_rois_num_outside",
    ),
    OpCase(
        "roi_pool",
        {"X": _x(2, 2, 5, 7), "ROIs": _rois(_FAR), "RoisLod": np.array([0, 2, 3])},
        _roi_pool_ref,
        attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
        grad=("X",),
        name="roi_pool_rois_lod",
    ),  # Fluid 1.8's offsets tensor
    OpCase(
        "roi_align",
        {"X": rng.normal(size=(2, 3, 6, 8)), "ROIs": _rois(_BOXES, [[0, 3, 5]])},
        _roi_align_ref,
        attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 0.5, "sampling_ratio": -1},
        grad=("X",),
    ),
    OpCase(
        "roi_align",
        {"X": rng.normal(size=(2, 2, 5, 7)), "ROIs": _rois(_FAR), "RoisNum": np.array([2, 1], np.int32)},
        _roi_align_ref,
        attrs={"pooled_height": 3, "pooled_width": 2, "spatial_scale": 1.0, "sampling_ratio": 2},
        grad=("X",),
        name="roi_align_rois_num_ratio2",
    ),
    OpCase(
        "roi_align",
        {"X": rng.normal(size=(2, 2, 5, 7)), "ROIs": _rois(_FAR), "RoisLod": np.array([0, 1, 3])},
        _roi_align_ref,
        attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0, "sampling_ratio": 2},
        grad=("X",),
        name="roi_align_rois_lod",
    ),  # test_roi_align_op.py's TestROIAlignInLodOp
    OpCase(  # Paddle 2.x's aligned rois, some smaller than a cell (numeric gradients of this forward: Paddle
        # 2.6.2's CPU roi_align_grad widens those to a cell where its forward does not, docs/COMPAT.md)
        "roi_align",
        {
            "X": rng.normal(size=(2, 2, 5, 7)),
            "ROIs": _rois(_FAR + [[1.3, 2.1, 1.9, 2.4]]),
            "RoisNum": np.array([2, 2], np.int32),
        },
        _roi_align_ref,
        attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.8, "sampling_ratio": -1, "aligned": True},
        grad=("X",),
        name="roi_align_aligned",
    ),
    OpCase(
        "roi_align",
        {"X": rng.normal(size=(1, 2, 4, 5)), "ROIs": _rois([[0.5, 0.5, 3.5, 2.5], [1, 1, 1.2, 1.1]])},
        _roi_align_ref,
        attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0},
        grad=("X",),
        name="roi_align_one_image_no_lod",
    ),
    OpCase(
        "psroi_pool",
        {"X": rng.normal(size=(2, 12, 6, 8)), "ROIs": _rois(_BOXES, [[0, 2, 5]])},
        _psroi_ref,
        attrs={"output_channels": 2, "pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5},
        grad=("X",),
    ),
    OpCase(
        "psroi_pool",
        {"X": rng.normal(size=(2, 4, 5, 7)), "ROIs": _rois(_FAR, [[0, 1, 3]])},
        _psroi_ref,
        attrs={"output_channels": 1, "pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
        grad=("X",),
        name="psroi_pool_outside",
    ),
    OpCase(
        "prroi_pool",
        {"X": rng.normal(size=(2, 3, 6, 8)), "ROIs": _rois(_BOXES, [[0, 2, 5]])},
        _prroi_ref,
        attrs={"pooled_height": 2, "pooled_width": 3, "spatial_scale": 0.5},
        grad=("X",),
    ),
    OpCase(
        "prroi_pool",
        {
            "X": rng.normal(size=(2, 2, 5, 7)),
            "ROIs": _rois(_FAR + [[2, 2, 2, 5]]),
            "BatchRoINums": np.array([3, 1], np.int64),
        },
        _prroi_ref,
        attrs={"pooled_height": 2, "pooled_width": 2, "spatial_scale": 1.0},
        grad=("X",),
        name="prroi_pool_batch_roi_nums",
    ),
]


_deform_rng = np.random.default_rng(61)


def _deform_sample(plane, x, y):
    h, w = plane.shape
    x, y = min(max(x, 0.0), w - 1.0), min(max(y, 0.0), h - 1.0)
    x0, x1, y0, y1 = math.floor(x), math.ceil(x), math.floor(y), math.ceil(y)
    fx, fy = x - x0, y - y0
    return (
        (1 - fx) * (1 - fy) * plane[y0, x0]
        + (1 - fx) * fy * plane[y1, x0]
        + fx * (1 - fy) * plane[y0, x1]
        + fx * fy * plane[y1, x1]
    )


def deform_ref(i, a):
    x, rois, trans = i["Input"], np.asarray(i["ROIs"]), i.get("Trans")
    img = np.repeat(np.arange(len(i["ROIs"].lod()[0]) - 1), np.diff(i["ROIs"].lod()[0]))
    _, _, h, w = x.shape
    od, ph, pw = a["output_dim"], a["pooled_height"], a["pooled_width"]
    spp, s = a["sample_per_part"], a["spatial_scale"]
    (gh, gw), (pth, ptw) = a["group_size"], a["part_size"]
    no_trans = a["no_trans"]
    ncls = 1 if no_trans else trans.shape[1] // 2
    if not no_trans:  # Fluid reads Trans flat as [R, 2 * classes, part_size...] (a larger one: its start)
        trans = trans.reshape(-1)[: len(rois) * 2 * ncls * pth * ptw].reshape(len(rois), 2 * ncls, pth, ptw)
    out, count = np.zeros((len(rois), od, ph, pw)), np.zeros((len(rois), od, ph, pw))
    for r, roi in enumerate(rois):
        sw, sh = _c_round(roi[0]) * s - 0.5, _c_round(roi[1]) * s - 0.5
        rw = max((_c_round(roi[2]) + 1) * s - 0.5 - sw, 0.1)
        rh = max((_c_round(roi[3]) + 1) * s - 0.5 - sh, 0.1)
        for k in range(od):
            cls = k // (od // ncls)
            for p in range(ph):
                for q in range(pw):
                    pi, pj = math.floor(p / ph * pth), math.floor(q / pw * ptw)
                    tx = 0 if no_trans else trans[r, 2 * cls, pi, pj] * a["trans_std"]
                    ty = 0 if no_trans else trans[r, 2 * cls + 1, pi, pj] * a["trans_std"]
                    x0, y0 = q * rw / pw + sw + tx * rw, p * rh / ph + sh + ty * rh
                    gi, gj = min(max(math.floor(p * gh / ph), 0), gh - 1), min(max(math.floor(q * gw / pw), 0), gw - 1)
                    plane = x[img[r], (k * gh + gi) * gw + gj]
                    vals = [
                        _deform_sample(plane, x0 + bb * rw / pw / spp, y0 + aa * rh / ph / spp)
                        for aa in range(spp)
                        for bb in range(spp)
                        if -0.5 <= x0 + bb * rw / pw / spp <= w - 0.5 and -0.5 <= y0 + aa * rh / ph / spp <= h - 0.5
                    ]
                    out[r, k, p, q] = np.mean(vals) if vals else 0.0
                    count[r, k, p, q] = len(vals)
    return {"Output": out.astype(x.dtype), "TopCount": count.astype(x.dtype)}


_DEFORM_ATTRS = {
    "no_trans": False,
    "spatial_scale": 0.5,
    "output_dim": 2,
    "group_size": [1, 1],
    "pooled_height": 2,
    "pooled_width": 2,
    "part_size": [2, 2],
    "sample_per_part": 2,
    "trans_std": 0.1,
}
_DEFORM_ROIS = LoDTensor(np.array([[1, 2, 12, 9], [4, 3, 11, 14], [0, 0, 17, 13]], np.float64), [[0, 1, 3]])

DEFORM_CASES = [
    OpCase(
        "deformable_psroi_pooling",
        {
            "Input": _deform_rng.normal(size=(2, 2, 8, 9)),
            "ROIs": _DEFORM_ROIS,
            "Trans": _deform_rng.uniform(-1, 1, (3, 2, 2, 2)),
        },
        deform_ref,
        attrs=dict(_DEFORM_ATTRS),
        grad=("Input", "Trans"),
        loss_outputs=("Output",),
    ),
    OpCase(
        "deformable_psroi_pooling",
        {
            "Input": _deform_rng.normal(size=(2, 8, 7, 8)),
            "ROIs": _DEFORM_ROIS,
            "Trans": _deform_rng.uniform(-1, 1, (3, 4, 3, 2)),
        },
        deform_ref,
        attrs=dict(
            _DEFORM_ATTRS,
            output_dim=2,
            group_size=[2, 2],
            pooled_height=3,
            part_size=[3, 2],
            sample_per_part=3,
            trans_std=0.2,
        ),
        grad=("Input", "Trans"),
        loss_outputs=("Output",),
        name="deformable_psroi_pooling_two_classes_groups",
    ),
    OpCase(
        "deformable_psroi_pooling",
        {"Input": _deform_rng.normal(size=(2, 3, 8, 9)), "ROIs": _DEFORM_ROIS},
        deform_ref,
        attrs=dict(_DEFORM_ATTRS, no_trans=True, output_dim=3, spatial_scale=0.25),
        grad=("Input",),
        loss_outputs=("Output",),
        name="deformable_psroi_pooling_no_trans",
    ),
]
# more channels than output_dim * group_size and a Trans larger than part_size: read as Fluid 1.8.5's kernel
# reads them (the first channels; Trans's first values as [R, 2 * classes, part_size...])
DEFORM_CASES += [
    OpCase(
        "deformable_psroi_pooling",
        {
            "Input": _deform_rng.normal(size=(2, 3, 8, 9)),
            "ROIs": _DEFORM_ROIS,
            "Trans": _deform_rng.uniform(-1, 1, (3, 2, 3, 3)),
        },
        deform_ref,
        attrs=dict(_DEFORM_ATTRS, part_size=[2, 2]),
        grad=("Input", "Trans"),
        loss_outputs=("Output",),
        name="deformable_psroi_pooling_wider_input_and_trans",
    ),
]
CASES += DEFORM_CASES


_persp_rng = np.random.default_rng(71)
EPS = 1e-4


def _ge(a, b):
    return a > b or abs(a - b) < EPS


def _persp_matrix(xs, ys, th, tw):
    sides = [math.hypot(xs[k] - xs[(k + 1) % 4], ys[k] - ys[(k + 1) % 4]) for k in range(4)]
    nh = max(2, th)
    nw = max(2, min(int(math.floor((sides[0] + sides[2]) / 2 * (nh - 1) / ((sides[1] + sides[3]) / 2) + 0.5)) + 1, tw))
    dx1, dx2, dx3 = xs[1] - xs[2], xs[3] - xs[2], xs[0] - xs[1] + xs[2] - xs[3]
    dy1, dy2, dy3 = ys[1] - ys[2], ys[3] - ys[2], ys[0] - ys[1] + ys[2] - ys[3]
    a31 = (dx3 * dy2 - dx2 * dy3) / (dx1 * dy2 - dx2 * dy1 + 1e-5) / (nw - 1)
    a32 = (dx1 * dy3 - dx3 * dy1) / (dx1 * dy2 - dx2 * dy1 + 1e-5) / (nh - 1)
    return [
        (xs[1] - xs[0] + a31 * (nw - 1) * xs[1]) / (nw - 1),
        (xs[3] - xs[0] + a32 * (nh - 1) * xs[3]) / (nh - 1),
        xs[0],
        (ys[1] - ys[0] + a31 * (nw - 1) * ys[1]) / (nw - 1),
        (ys[3] - ys[0] + a32 * (nh - 1) * ys[3]) / (nh - 1),
        ys[0],
        a31,
        a32,
        1.0,
    ]


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


def _persp_sample(plane, x, y):
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
    return (
        (1 - fx) * (1 - fy) * plane[y0, x0]
        + (1 - fx) * fy * plane[y1, x0]
        + fx * fy * plane[y1, x1]
        + fx * (1 - fy) * plane[y0, x1]
    )


def persp_ref(i, a):
    x, rois = i["X"], np.asarray(i["ROIs"])
    img = np.repeat(np.arange(len(i["ROIs"].lod()[0]) - 1), np.diff(i["ROIs"].lod()[0]))
    _, c, h, w = x.shape
    th, tw, s = a["transformed_height"], a["transformed_width"], a["spatial_scale"]
    out, mask = np.zeros((len(rois), c, th, tw)), np.zeros((len(rois), 1, th, tw), np.int32)
    mats = np.zeros((len(rois), 9))
    for r, roi in enumerate(rois):
        xs, ys = list(roi[0::2] * s), list(roi[1::2] * s)
        m = mats[r] = _persp_matrix(xs, ys, th, tw)
        for oi in range(th):
            for oj in range(tw):
                d = m[6] * oj + m[7] * oi + m[8]
                sx, sy = (m[0] * oj + m[1] * oi + m[2]) / d, (m[3] * oj + m[4] * oi + m[5]) / d
                if (
                    not _in_quad(sx, sy, xs, ys)
                    or _ge(-0.5, sx)
                    or _ge(sx, w - 0.5)
                    or _ge(-0.5, sy)
                    or _ge(sy, h - 0.5)
                ):
                    continue
                mask[r, 0, oi, oj] = 1
                for ch in range(c):
                    out[r, ch, oi, oj] = _persp_sample(x[img[r], ch], sx, sy)
    return {"Out": out.astype(x.dtype), "Mask": mask, "TransformMatrix": mats.astype(x.dtype)}


_QUADS = np.array(
    [
        [1, 1, 7, 2, 8, 6, 2, 7],  # a tilted quadrilateral
        [2, 3, 9, 3, 9, 8, 2, 8],  # an axis-aligned rectangle
        [0.5, 4, 6.5, 0.7, 10.2, 7.9, 3.3, 11.6],
    ],
    np.float64,
)

PERSP_CASES = [
    OpCase(
        "roi_perspective_transform",
        {"X": _persp_rng.normal(size=(2, 2, 8, 9)), "ROIs": LoDTensor(_QUADS, [[0, 1, 3]])},
        persp_ref,
        attrs={"transformed_height": 4, "transformed_width": 5, "spatial_scale": 1.0},
        grad=("X",),
        loss_outputs=("Out",),
    ),
    OpCase(
        "roi_perspective_transform",
        {"X": _persp_rng.normal(size=(1, 3, 6, 7)), "ROIs": LoDTensor(_QUADS * 1.5, [[0, 3]])},
        persp_ref,
        attrs={"transformed_height": 3, "transformed_width": 6, "spatial_scale": 0.5},
        grad=("X",),
        loss_outputs=("Out",),
        name="roi_perspective_transform_scaled",
    ),
]
CASES += PERSP_CASES
