"""Op cases for deformable_psroi_pooling: a direct loop over rois, channels, bins and samples
following Fluid 1.8's test_deformable_psroi_pooling.py, with float64 gradient checks wrt Input and
Trans (samples kept off the integer grid lines and the map's edges, where the bilinear sample has a
kink)."""
import math

import numpy as np

from op_test import OpCase
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(61)


def _c_round(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


def _sample(plane, x, y):
    h, w = plane.shape
    x, y = min(max(x, 0.0), w - 1.0), min(max(y, 0.0), h - 1.0)
    x0, x1, y0, y1 = math.floor(x), math.ceil(x), math.floor(y), math.ceil(y)
    fx, fy = x - x0, y - y0
    return ((1 - fx) * (1 - fy) * plane[y0, x0] + (1 - fx) * fy * plane[y1, x0] + fx * (1 - fy) * plane[y0, x1]
            + fx * fy * plane[y1, x1])


def _ref(i, a):
    x, rois, trans = i["Input"], np.asarray(i["ROIs"]), i.get("Trans")
    img = np.repeat(np.arange(len(i["ROIs"].lod()[0]) - 1), np.diff(i["ROIs"].lod()[0]))
    _, _, h, w = x.shape
    od, ph, pw = a["output_dim"], a["pooled_height"], a["pooled_width"]
    spp, s = a["sample_per_part"], a["spatial_scale"]
    (gh, gw), (pth, ptw) = a["group_size"], a["part_size"]
    no_trans = a["no_trans"]
    ncls = 1 if no_trans else trans.shape[1] // 2
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
                    vals = [_sample(plane, x0 + bb * rw / pw / spp, y0 + aa * rh / ph / spp)
                            for aa in range(spp) for bb in range(spp)
                            if -0.5 <= x0 + bb * rw / pw / spp <= w - 0.5
                            and -0.5 <= y0 + aa * rh / ph / spp <= h - 0.5]
                    out[r, k, p, q] = np.mean(vals) if vals else 0.0
                    count[r, k, p, q] = len(vals)
    return {"Output": out.astype(x.dtype), "TopCount": count.astype(x.dtype)}


_ATTRS = {"no_trans": False, "spatial_scale": 0.5, "output_dim": 2, "group_size": [1, 1], "pooled_height": 2,
          "pooled_width": 2, "part_size": [2, 2], "sample_per_part": 2, "trans_std": 0.1}
_ROIS = LoDTensor(np.array([[1, 2, 12, 9], [4, 3, 11, 14], [0, 0, 17, 13]], np.float64), [[0, 1, 3]])

CASES = [
    OpCase("deformable_psroi_pooling", {"Input": rng.normal(size=(2, 2, 8, 9)), "ROIs": _ROIS,
                                        "Trans": rng.uniform(-1, 1, (3, 2, 2, 2))},
           _ref, attrs=dict(_ATTRS), grad=("Input", "Trans"), loss_outputs=("Output",)),
    OpCase("deformable_psroi_pooling", {"Input": rng.normal(size=(2, 8, 7, 8)), "ROIs": _ROIS,
                                        "Trans": rng.uniform(-1, 1, (3, 4, 3, 2))},
           _ref, attrs=dict(_ATTRS, output_dim=2, group_size=[2, 2], pooled_height=3, part_size=[3, 2],
                            sample_per_part=3, trans_std=0.2),
           grad=("Input", "Trans"), loss_outputs=("Output",), name="deformable_psroi_pooling_two_classes_groups"),
    OpCase("deformable_psroi_pooling", {"Input": rng.normal(size=(2, 3, 8, 9)), "ROIs": _ROIS},
           _ref, attrs=dict(_ATTRS, no_trans=True, output_dim=3, spatial_scale=0.25), grad=("Input",),
           loss_outputs=("Output",), name="deformable_psroi_pooling_no_trans"),
]
