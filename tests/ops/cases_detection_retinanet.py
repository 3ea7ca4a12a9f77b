"""Op case for retinanet_detection_output: a loop reference written from Fluid 1.8's
test_retinanet_detection_output.py (per level thresholded top-k, decoding against the anchors,
clipping to the original image, per-class greedy NMS with Fluid's pixel IoU, keep_top_k)."""
import math

import numpy as np

from op_test import OpCase
from tests.ops.cases_detection_proposals import _nms

rng = np.random.default_rng(83)


def _ref(i, a):
    out, offsets = [], [0]
    levels = len(i["Scores"])
    for im in range(i["Scores"][0].shape[0]):
        h, w, s = i["ImInfo"][im]
        im_h, im_w = math.floor(h / s + 0.5), math.floor(w / s + 0.5)
        preds = {}
        for lv, (sc, bb, an) in enumerate(zip(i["Scores"], i["BBoxes"], i["Anchors"])):
            thresh = a["score_threshold"] if lv < levels - 1 else 0.0
            flat = sc[im].reshape(-1)
            cand = sorted([k for k in range(flat.size) if flat[k] > thresh], key=lambda k: -flat[k])
            for k in cand[:a["nms_top_k"]] if a["nms_top_k"] > -1 else cand:
                anc, d = an[k // sc.shape[2]], bb[im, k // sc.shape[2]]
                aw, ah = anc[2] - anc[0] + 1, anc[3] - anc[1] + 1
                cx, cy = d[0] * aw + anc[0] + aw / 2, d[1] * ah + anc[1] + ah / 2
                bw, bh = math.exp(d[2]) * aw, math.exp(d[3]) * ah
                box = [(cx - bw / 2) / s, (cy - bh / 2) / s, (cx + bw / 2 - 1) / s, (cy + bh / 2 - 1) / s]
                box = [min(max(v, 0), (im_w if j % 2 == 0 else im_h) - 1) for j, v in enumerate(box)]
                preds.setdefault(k % sc.shape[2], []).append((flat[k], box))
        dets = []
        for c in sorted(preds):
            ranked = sorted(preds[c], key=lambda p: -p[0])
            dets += [(ranked[k][0], c, ranked[k][1]) for k in _nms([b for _, b in ranked], a["nms_threshold"],
                                                                  a["nms_eta"])]
        dets = sorted(dets, key=lambda d: -d[0])[:a["keep_top_k"]]
        out += [[c + 1, score, *box] for score, c, box in dets]
        offsets.append(len(out))
    return {"Out": np.array(out, dtype=i["Scores"][0].dtype).reshape(-1, 6)}


def _anchors(m, size):
    xy = rng.uniform(0, 60, (m, 2))
    return np.c_[xy, xy + size - 1]


CASES = [
    OpCase("retinanet_detection_output",
           {"BBoxes": [rng.normal(0, 0.3, (2, 12, 4)), rng.normal(0, 0.3, (2, 6, 4))],
            "Scores": [rng.uniform(0, 1, (2, 12, 3)), rng.uniform(0, 0.3, (2, 6, 3))],
            "Anchors": [_anchors(12, 16), _anchors(6, 32)],
            "ImInfo": np.array([[64.0, 64.0, 1.0], [80.0, 72.0, 1.5]])},
           _ref, attrs={"score_threshold": 0.3, "nms_top_k": 10, "nms_threshold": 0.4, "nms_eta": 1.0,
                        "keep_top_k": 12}),
]
