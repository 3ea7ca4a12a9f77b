"""Kernel of ops/detection_mask.py (generate_mask_labels): numpy per image, the polygons rasterized
as Fluid 1.8's mask_util.cc does (COCO's rleFrPoly: edges walked at 5x, y-boundaries sampled at the
pixel columns, run lengths decoded), after generate_mask_labels_op.cc. The CUDA kernel runs this on
the host."""
import numpy as np

from .detection_target import overlaps


def _edge_points(x, y):
    """The polygon's edges walked point by point (integer coordinates at 5x): (u, v) lists."""
    u, v = [], []
    for j in range(len(x) - 1):
        xs, xe, ys, ye = x[j], x[j + 1], y[j], y[j + 1]
        dx, dy = abs(xe - xs), abs(ys - ye)
        flip = (dx >= dy and xs > xe) or (dx < dy and ys > ye)
        if flip:
            xs, xe, ys, ye = xe, xs, ye, ys
        if dx >= dy:
            s = (ye - ys) / dx if dx else 0.0
            for d in range(dx + 1):
                t = dx - d if flip else d
                u.append(t + xs)
                v.append(int(ys + s * t + 0.5))
        else:
            s = (xe - xs) / dy
            for d in range(dy + 1):
                t = dy - d if flip else d
                v.append(t + ys)
                u.append(int(xs + s * t + 0.5))
    return u, v


def poly_to_mask(xy, h, w):
    """uint8 [h, w]: the polygon xy [k, 2] (pixel units) rasterized (Fluid's Poly2Mask)."""
    scale = 5.0
    x = [int(scale * float(p) + 0.5) for p in xy[:, 0]]
    y = [int(scale * float(p) + 0.5) for p in xy[:, 1]]
    u, v = _edge_points(x + x[:1], y + y[:1])
    starts = []
    for j in range(1, len(u)):
        if u[j] == u[j - 1]:
            continue
        xd = (float(u[j] if u[j] < u[j - 1] else u[j] - 1) + 0.5) / scale - 0.5
        if np.floor(xd) != xd or xd < 0 or xd > w - 1:
            continue
        yd = (float(v[j] if v[j] < v[j - 1] else v[j - 1]) + 0.5) / scale - 0.5
        yd = np.ceil(min(max(yd, 0.0), float(h)))
        starts.append(int(xd) * h + int(yd))
    # column-major run lengths: the sorted boundary positions toggle the value
    flat = np.zeros(h * w + 1, dtype=np.int64)
    np.add.at(flat, np.asarray(starts, dtype=np.int64), 1)
    mask = (np.cumsum(flat[:-1]) % 2).astype(np.uint8)
    return mask.reshape(w, h).T


def polys_to_mask(polys, box, m):
    """uint8 [m, m]: the union of an object's polygons rasterized in ``box`` (Polys2MaskWrtBox; float32)."""
    box = np.asarray(box, dtype=np.float32)
    bw, bh = max(box[2] - box[0], np.float32(1)), max(box[3] - box[1], np.float32(1))
    out = np.zeros((m, m), dtype=np.uint8)
    for p in polys:
        p = np.asarray(p, dtype=np.float32).reshape(-1, 2)
        rel = np.stack([(p[:, 0] - box[0]) * np.float32(m) / bw, (p[:, 1] - box[1]) * np.float32(m) / bh], axis=1)
        out |= poly_to_mask(rel, m, m)
    return out


def _objects(segms, lods, start, stop):
    """The polygons (lists of [k, 2] arrays) of objects start..stop of GtSegms' 3-level LoD."""
    obj, poly = lods[1], lods[2]
    return [[segms[poly[p]:poly[p + 1]] for p in range(obj[o], obj[o + 1])] for o in range(start, stop)]


def _boxes_of(objects):
    """Each object's polygons' bounding box (Poly2Boxes)."""
    out = np.zeros((len(objects), 4))
    for i, polys in enumerate(objects):
        pts = np.concatenate([np.asarray(p, dtype=np.float64).reshape(-1, 2) for p in polys])
        out[i] = [pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()]
    return out


def _one_image(rois, labels, objects, scale, attrs):
    """(mask rois, their row in rois, mask targets [P, num_classes * M * M]) of one image."""
    m, k = attrs["resolution"], attrs["num_classes"]
    fg = np.nonzero(labels > 0)[0]
    if not fg.size:     # Fluid gives the first background roi an all -1 target (and the first roi's box)
        bg = np.nonzero(labels == 0)[0][:1]
        return rois[:1], bg, np.full((1, k * m * m), -1, dtype=np.int32)
    fg_rois = rois[fg] / scale
    boxes = _boxes_of([objects[j] for j in range(len(objects))])
    ov = overlaps(fg_rois, boxes) if len(objects) else np.zeros((fg.size, 0))
    targets = np.full((fg.size, k * m * m), -1, dtype=np.int32)
    for r in range(fg.size):
        best = int(np.argmax(ov[r])) if ov.shape[1] and ov[r].max() > 0 else 0
        mask = polys_to_mask(objects[best], fg_rois[r], m) if objects else np.zeros((m, m), np.uint8)
        label = int(labels[fg[r]])
        targets[r, label * m * m:(label + 1) * m * m] = mask.reshape(-1)
    return fg_rois * scale, fg, targets


def generate_mask_labels(ins, attrs):
    lods = attrs.get("_lod") or {}
    rois = np.asarray(ins["Rois"], dtype=np.float64).reshape(-1, 4)
    roi_lod = lods["Rois"][-1] if lods.get("Rois") else [0, rois.shape[0]]
    gt_lod = lods["GtClasses"][-1] if lods.get("GtClasses") else [0, np.asarray(ins["GtClasses"]).shape[0]]
    segm_lod = lods.get("GtSegms")
    classes, crowd = np.asarray(ins["GtClasses"]).reshape(-1), np.asarray(ins["IsCrowd"]).reshape(-1)
    labels, segms = np.asarray(ins["LabelsInt32"]).reshape(-1), np.asarray(ins["GtSegms"]).reshape(-1, 2)
    parts, offsets = [], [0]
    for i in range(len(roi_lod) - 1):
        if roi_lod[i] == roi_lod[i + 1]:
            offsets.append(offsets[-1])
            continue
        keep = [o for o in range(segm_lod[0][i], segm_lod[0][i + 1])
                if classes[gt_lod[i] + o - segm_lod[0][i]] > 0 and crowd[gt_lod[i] + o - segm_lod[0][i]] == 0]
        objects = [_objects(segms, segm_lod, o, o + 1)[0] for o in keep]
        scale = float(np.asarray(ins["ImInfo"][i]).reshape(-1)[2])
        r = slice(roi_lod[i], roi_lod[i + 1])
        parts.append(_one_image(rois[r], labels[r], objects, scale, attrs))
        offsets.append(offsets[-1] + len(parts[-1][1]))
    width = attrs["num_classes"] * attrs["resolution"] ** 2
    dtype = np.asarray(ins["Rois"]).dtype
    outs = {"MaskRois": np.concatenate([p[0] for p in parts] or [np.zeros((0, 4))]).reshape(-1, 4).astype(dtype),
            "RoiHasMaskInt32": np.concatenate([p[1] for p in parts] or [np.zeros(0)]).astype(np.int32).reshape(-1, 1),
            "MaskInt32": np.concatenate([p[2] for p in parts] or [np.zeros((0, width))]).astype(np.int32)
            .reshape(-1, width)}
    outs["@LOD"] = {k: [offsets] for k in outs}
    return outs
