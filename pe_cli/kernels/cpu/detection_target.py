"""Kernels of ops/detection_target.py: rpn_target_assign, retinanet_target_assign and
generate_proposal_labels (numpy per image, following Fluid 1.8's rpn_target_assign_op.cc and
generate_proposal_labels_op.cc, their Detectron-compatible quirks included: a sampled background anchor
that was foreground becomes a "fake" foreground row with zero inside weights; the sampling draws from
the op's seeded generator), and generate_mask_labels (numpy per image, the polygons rasterized as
Fluid 1.8's mask_util.cc does: COCO's rleFrPoly, edges walked at 5x, y-boundaries sampled at the
pixel columns, run lengths decoded; after generate_mask_labels_op.cc). The CUDA kernels run these on
the host. Each is an out-kernel (meta rules: shapes/detection_targets.py), a ``fresh`` variant handing over the
arrays its per-image loop makes (their lengths and LoD the values'), told the call's context (the inputs' LoD, the
Generator); the kernels by name CUDA's kernels are given are their adapters."""

import numpy as np

from ...shapes import detection_targets as rules
from ..structured import adapter, fresh_outputs


def overlaps(boxes, gts):
    """[n, k] IoU of pixel boxes (sizes + 1), 0 where they do not meet (Fluid's BboxOverlaps)."""
    area_b = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    area_g = (gts[:, 2] - gts[:, 0] + 1) * (gts[:, 3] - gts[:, 1] + 1)
    lo = np.maximum(boxes[:, None, :2], gts[None, :, :2])
    hi = np.minimum(boxes[:, None, 2:], gts[None, :, 2:])
    iw, ih = np.maximum(hi[..., 0] - lo[..., 0] + 1, 0), np.maximum(hi[..., 1] - lo[..., 1] + 1, 0)
    inter = iw * ih
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(inter == 0, 0.0, inter / (area_b[:, None] + area_g[None, :] - inter))


def box_to_delta(ex, gt):
    """Regression targets (dx, dy, log dw, log dh) of gt boxes from ex boxes (pixel sizes + 1)."""
    ew, eh = ex[:, 2] - ex[:, 0] + 1, ex[:, 3] - ex[:, 1] + 1
    gw, gh = gt[:, 2] - gt[:, 0] + 1, gt[:, 3] - gt[:, 1] + 1
    return np.stack(
        [
            (gt[:, 0] + 0.5 * gw - ex[:, 0] - 0.5 * ew) / ew,
            (gt[:, 1] + 0.5 * gh - ex[:, 1] - 0.5 * eh) / eh,
            np.log(gw / ew),
            np.log(gh / eh),
        ],
        axis=1,
    )


def reservoir(inds, num, rng, use_random):
    """The first ``num`` of ``inds`` after reservoir sampling (Fluid's ReservoirSampling)."""
    inds = list(inds)
    if len(inds) > num:
        if use_random:
            for i in range(num, len(inds)):
                j = int(np.floor(rng.uniform() * i))
                if j < num:
                    inds[j], inds[i] = inds[i], inds[j]
        inds = inds[:num]
    return inds


def _sample(ov, batch, fraction, pos, neg, use_random, rng):
    """(rows of the location targets, their inside weights, foreground rows, background rows) of one
    image; batch or fraction <= 0 (retinanet_target_assign): every candidate, no sampling."""
    if not ov.shape[0]:
        none = np.zeros(0, dtype=np.int64)
        return none, np.zeros(0), none, none
    anchor_max = ov.max(axis=1) if ov.shape[1] else np.zeros(ov.shape[0])
    gt_max = ov.max(axis=0)
    is_max = (np.abs(ov - gt_max[None, :]) < 1e-5).any(axis=1) if ov.shape[1] else np.zeros(ov.shape[0], bool)
    fg_fake = np.nonzero(is_max | (anchor_max >= pos))[0].tolist()
    sampled = batch > 0 and fraction > 0
    if sampled:
        fg_fake = reservoir(fg_fake, int(fraction * batch), rng, use_random)
    label = np.full(ov.shape[0], -1)
    label[fg_fake] = 1
    bg = np.nonzero(anchor_max < neg)[0].tolist()
    if sampled:
        bg = reservoir(bg, batch - len(fg_fake), rng, use_random)
    loc, weights = [], []
    for b in bg:
        if label[b] == 1:  # a foreground anchor sampled as background: a fake location row
            loc.append(fg_fake[0])
            weights.append(0.0)
        label[b] = 0
    fg = np.nonzero(label == 1)[0]
    weights += [1.0] * (len(fg_fake) - len(weights))
    return np.array(loc + fg.tolist(), dtype=np.int64), np.array(weights), fg, np.nonzero(label == 0)[0]


def _assign(ins, attrs, ctx, sampling, straddle, labels=None):
    """Both ops' per-image loop: the outputs with their LoD (and each image's foreground count)."""
    anchors = np.asarray(ins["Anchor"], dtype=np.float64).reshape(-1, 4)
    gts, crowd, info = np.asarray(ins["GtBoxes"], dtype=np.float64).reshape(-1, 4), ins["IsCrowd"], ins["ImInfo"]
    lod = (ctx.lod.get("GtBoxes") or [[0, gts.shape[0]]])[-1]
    rng = ctx.rng or np.random.default_rng(0)
    parts = {k: [] for k in ("loc", "score", "bbox", "label", "weight", "fg")}
    counts_loc, counts_score = [0], [0]
    for i in range(len(lod) - 1):
        h, w, scale = (float(v) for v in np.asarray(info[i]).reshape(-1)[:3])
        inside = (
            np.arange(anchors.shape[0])
            if straddle < 0
            else np.nonzero(
                (anchors[:, 0] >= -straddle)
                & (anchors[:, 1] >= -straddle)
                & (anchors[:, 2] < w + straddle)
                & (anchors[:, 3] < h + straddle)
            )[0]
        )
        keep = np.asarray(crowd).reshape(-1)[lod[i] : lod[i + 1]] == 0
        gt = gts[lod[i] : lod[i + 1]][keep] * scale
        ov = overlaps(anchors[inside], gt)
        loc, weight, fg, bg = _sample(ov, *sampling, rng)
        argmax = ov.argmax(axis=1) if gt.shape[0] else np.zeros(len(inside), np.int64)
        parts["loc"].append(inside[loc] + i * anchors.shape[0])
        parts["score"].append(np.concatenate([inside[fg], inside[bg]]) + i * anchors.shape[0])
        parts["bbox"].append(box_to_delta(anchors[inside[loc]], gt[argmax[loc]]) if len(loc) else np.zeros((0, 4)))
        fg_label = (
            np.ones(len(fg))
            if labels is None
            else np.asarray(labels).reshape(-1)[lod[i] : lod[i + 1]][keep][argmax[fg]]
        )
        parts["label"].append(np.r_[fg_label, np.zeros(len(bg))])
        parts["weight"].append(np.repeat(weight, 4).reshape(-1, 4))
        parts["fg"].append(len(loc) + 1)
        counts_loc.append(counts_loc[-1] + len(loc))
        counts_score.append(counts_score[-1] + len(fg) + len(bg))
    dtype = np.asarray(ins["Anchor"]).dtype
    outs = {
        "LocationIndex": np.concatenate(parts["loc"]).astype(np.int32),
        "ScoreIndex": np.concatenate(parts["score"]).astype(np.int32),
        "TargetBBox": np.concatenate(parts["bbox"]).reshape(-1, 4).astype(dtype),
        "TargetLabel": np.concatenate(parts["label"]).astype(np.int32).reshape(-1, 1),
        "BBoxInsideWeight": np.concatenate(parts["weight"]).reshape(-1, 4).astype(dtype),
    }
    ctx.set_lod_map(
        {k: [counts_loc if k in ("LocationIndex", "TargetBBox", "BBoxInsideWeight") else counts_score] for k in outs}
    )
    return outs, np.asarray(parts["fg"], dtype=np.int32).reshape(-1, 1)


def rpn_target_assign_out(ins, outs, attrs, meta, ctx):
    sampling = (
        attrs["rpn_batch_size_per_im"],
        attrs["rpn_fg_fraction"],
        attrs["rpn_positive_overlap"],
        attrs["rpn_negative_overlap"],
    )
    results = _assign(ins, attrs, ctx, sampling + (attrs["use_random"],), attrs["rpn_straddle_thresh"])[0]
    fresh_outputs(results, ins, outs, meta)


def retinanet_target_assign_out(ins, outs, attrs, meta, ctx):
    """Every foreground and background anchor (no sampling, no straddle filter); the foreground's
    labels are their gt boxes' classes; ForegroundNumber [N, 1]: each image's location rows + 1."""
    results, fg = _assign(
        ins,
        attrs,
        ctx,
        (-1, -1, attrs["positive_overlap"], attrs["negative_overlap"], False),
        -1.0,
        labels=ins["GtLabels"],
    )
    results["ForegroundNumber"] = fg
    ctx.set_lod("ForegroundNumber", [list(range(fg.shape[0] + 1))])
    fresh_outputs(results, ins, outs, meta)


def _rois_sample(ov, crowd, attrs, rng):
    """(foreground rows, their gt columns, background rows) of one image (Fluid's SampleFgBgGt)."""
    top = ov.max(axis=1) if ov.shape[1] else np.full(ov.shape[0], -1.0)
    top[: len(crowd)][crowd != 0] = -1.0
    fg = np.nonzero(top >= attrs["fg_thresh"])[0]
    gt_of = [int(np.nonzero(np.abs(ov[r] - top[r]) < 1e-5)[0][0]) for r in fg]
    fg = fg.tolist()
    bg = np.nonzero((top < attrs["fg_thresh"]) & (top >= attrs["bg_thresh_lo"]) & (top < attrs["bg_thresh_hi"]))[0]
    bg = bg.tolist()
    if attrs["is_cascade_rcnn"]:  # every foreground and background roi, none sampled
        return fg, gt_of, bg
    n_fg = min(int(np.floor(attrs["batch_size_per_im"] * attrs["fg_fraction"])), len(fg))
    n_bg = min(attrs["batch_size_per_im"] - n_fg, len(bg))
    if attrs["use_random"]:
        for i in range(n_fg, len(fg)):
            j = int(np.floor(rng.uniform() * i))
            if j < n_fg:
                fg[j], fg[i], gt_of[j], gt_of[i] = fg[i], fg[j], gt_of[i], gt_of[j]
        for i in range(n_bg, len(bg)):
            j = int(np.floor(rng.uniform() * i))
            if j < n_fg:  # Fluid's bound (the foreground count), kept
                bg[j], bg[i] = bg[i], bg[j]
    return fg[:n_fg], gt_of[:n_fg], bg[:n_bg]


def _rois_one_image(rois, gt, classes, crowd, scale, attrs, rng):
    rois = rois / scale
    if attrs["is_cascade_rcnn"]:  # Fluid's: the rois after the gt boxes' rows, those of positive size
        rois = rois[len(gt) :]
        rois = rois[(rois[:, 2] - rois[:, 0] + 1 > 0) & (rois[:, 3] - rois[:, 1] + 1 > 0)]
    boxes = np.concatenate([gt, rois]).reshape(-1, 4)
    ov = overlaps(boxes, gt)
    fg, gt_of, bg = _rois_sample(ov, crowd, attrs, rng)
    picked = fg + bg
    labels = np.r_[classes[gt_of], np.zeros(len(bg))].astype(np.int64)
    single = box_to_delta(boxes[fg], gt[gt_of]) / np.asarray(attrs["bbox_reg_weights"], dtype=np.float64)
    width = 4 * attrs["class_nums"]
    targets, weights = np.zeros((len(picked), width)), np.zeros((len(picked), width))
    for r in range(len(fg)):
        if labels[r] > 0:
            col = 4 * (1 if attrs["is_cls_agnostic"] else labels[r])
            targets[r, col : col + 4] = single[r]
            weights[r, col : col + 4] = 1.0
    top = ov.max(axis=1) if ov.shape[1] else np.zeros(ov.shape[0])
    return boxes[picked] * scale, labels, targets, weights, top[picked]


def generate_proposal_labels_out(ins, outs, attrs, meta, ctx):
    lods = ctx.lod
    rois, gts = np.asarray(ins["RpnRois"], dtype=np.float64), np.asarray(ins["GtBoxes"], dtype=np.float64)
    roi_lod = (lods.get("RpnRois") or [[0, rois.shape[0]]])[-1]
    gt_lod = (lods.get("GtBoxes") or [[0, gts.shape[0]]])[-1]
    classes, crowd = np.asarray(ins["GtClasses"]).reshape(-1), np.asarray(ins["IsCrowd"]).reshape(-1)
    rng = ctx.rng or np.random.default_rng(0)
    parts, offsets = [], [0]
    for i in range(len(roi_lod) - 1):
        g = slice(gt_lod[i], gt_lod[i + 1])
        scale = float(np.asarray(ins["ImInfo"][i]).reshape(-1)[2])
        parts.append(
            _rois_one_image(
                rois[roi_lod[i] : roi_lod[i + 1]].reshape(-1, 4),
                gts[g].reshape(-1, 4),
                classes[g],
                crowd[g],
                scale,
                attrs,
                rng,
            )
        )
        offsets.append(offsets[-1] + len(parts[-1][1]))
    dtype, width = np.asarray(ins["RpnRois"]).dtype, 4 * attrs["class_nums"]
    results = {
        "Rois": np.concatenate([p[0] for p in parts]).reshape(-1, 4).astype(dtype),
        "LabelsInt32": np.concatenate([p[1] for p in parts]).astype(np.int32).reshape(-1, 1),
        "BboxTargets": np.concatenate([p[2] for p in parts]).reshape(-1, width).astype(dtype),
        "BboxInsideWeights": np.concatenate([p[3] for p in parts]).reshape(-1, width).astype(dtype),
        "BboxOutsideWeights": np.concatenate([p[3] for p in parts]).reshape(-1, width).astype(dtype),
        "MaxOverlapWithGT": np.concatenate([p[4] for p in parts]).astype(dtype),
    }
    ctx.set_lod_map({k: [offsets] for k in results})
    fresh_outputs(results, ins, outs, meta)


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
    return [[segms[poly[p] : poly[p + 1]] for p in range(obj[o], obj[o + 1])] for o in range(start, stop)]


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
    if not fg.size:  # Fluid gives the first background roi an all -1 target (and the first roi's box)
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
        targets[r, label * m * m : (label + 1) * m * m] = mask.reshape(-1)
    return fg_rois * scale, fg, targets


def generate_mask_labels_out(ins, outs, attrs, meta, ctx):
    lods = ctx.lod
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
        keep = [
            o
            for o in range(segm_lod[0][i], segm_lod[0][i + 1])
            if classes[gt_lod[i] + o - segm_lod[0][i]] > 0 and crowd[gt_lod[i] + o - segm_lod[0][i]] == 0
        ]
        objects = [_objects(segms, segm_lod, o, o + 1)[0] for o in keep]
        scale = float(np.asarray(ins["ImInfo"][i]).reshape(-1)[2])
        r = slice(roi_lod[i], roi_lod[i + 1])
        parts.append(_one_image(rois[r], labels[r], objects, scale, attrs))
        offsets.append(offsets[-1] + len(parts[-1][1]))
    width = attrs["num_classes"] * attrs["resolution"] ** 2
    dtype = np.asarray(ins["Rois"]).dtype
    results = {
        "MaskRois": np.concatenate([p[0] for p in parts] or [np.zeros((0, 4))]).reshape(-1, 4).astype(dtype),
        "RoiHasMaskInt32": np.concatenate([p[1] for p in parts] or [np.zeros(0)]).astype(np.int32).reshape(-1, 1),
        "MaskInt32": np.concatenate([p[2] for p in parts] or [np.zeros((0, width))])
        .astype(np.int32)
        .reshape(-1, width),
    }
    ctx.set_lod_map({k: [offsets] for k in results})
    fresh_outputs(results, ins, outs, meta)


# (each reads the call's LoD and draws from its Generator, and sets its outputs' LoD)
rpn_target_assign_out.takes_context = retinanet_target_assign_out.takes_context = True
generate_proposal_labels_out.takes_context = generate_mask_labels_out.takes_context = True

# the kernels by name CUDA's kernels are given (kernels/cuda/detection_target.py's HOST_OPS): the adapters
rpn_target_assign = adapter(rules.rpn_target_assign_meta, rpn_target_assign_out, "rpn_target_assign")
retinanet_target_assign = adapter(
    rules.retinanet_target_assign_meta, retinanet_target_assign_out, "retinanet_target_assign"
)
generate_proposal_labels = adapter(rules.proposal_labels_meta, generate_proposal_labels_out, "generate_proposal_labels")
generate_mask_labels = adapter(rules.mask_labels_meta, generate_mask_labels_out, "generate_mask_labels")
