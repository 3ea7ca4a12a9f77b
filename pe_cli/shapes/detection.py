"""The detection families' rules that depend on shapes and attributes alone, shared by the ops' shape rules
and the kernels of both devices: the box generators of prior_box, density_prior_box and anchor_generator
(numpy, float64; the ops count priors with the same functions) and the clip windows of box_clip; which
image each roi pools from and deformable_psroi_pooling's sizes; yolov3_loss's sizes and label targets."""

import numpy as np

from ..base.errors import PeError


def expand_aspect_ratios(ratios, flip):
    """Fluid's ExpandAspectRatios: 1 first, then each ratio not already listed (within 1e-6), and
    its reciprocal when ``flip``."""
    out = [1.0]
    for ar in ratios:
        if any(abs(ar - seen) < 1e-6 for seen in out):
            continue
        out.append(float(ar))
        if flip:
            out.append(1.0 / ar)
    return out


def density_priors(attrs):
    """density_prior_box's boxes per cell: len(fixed_ratios) * density^2 summed over densities."""
    return sum(len(attrs["fixed_ratios"]) * d * d for d in attrs["densities"])


def _steps(attrs, feat_hw, img_hw):
    if attrs["step_w"] == 0 or attrs["step_h"] == 0:
        return img_hw[1] / feat_hw[1], img_hw[0] / feat_hw[0]
    return float(attrs["step_w"]), float(attrs["step_h"])


def _centers(feat_hw, step_w, step_h, offset):
    """[H, W, 1] center x and y of every cell."""
    h, w = feat_hw
    cx = (np.arange(w, dtype=np.float64) + offset) * step_w
    cy = (np.arange(h, dtype=np.float64) + offset) * step_h
    return np.broadcast_to(cx[None, :, None], (h, w, 1)), np.broadcast_to(cy[:, None, None], (h, w, 1))


def _prior_half_sizes(attrs):
    """(half widths, half heights) of one cell's priors, in Fluid's order."""
    ratios = expand_aspect_ratios(attrs["aspect_ratios"], attrs["flip"])
    maxes = attrs["max_sizes"]
    halves = []
    for s, m in enumerate(attrs["min_sizes"]):
        by_ratio = [(m * np.sqrt(ar) / 2, m / np.sqrt(ar) / 2) for ar in ratios]
        square = [(np.sqrt(m * maxes[s]) / 2,) * 2] if maxes else []
        if attrs["min_max_aspect_ratios_order"]:
            halves += [(m / 2, m / 2)] + square + [hw for ar, hw in zip(ratios, by_ratio) if abs(ar - 1) >= 1e-6]
        else:
            halves += by_ratio + square
    return np.array([h[0] for h in halves]), np.array([h[1] for h in halves])


def _variances(boxes_shape, attrs):
    return np.broadcast_to(np.asarray(attrs["variances"], np.float64), boxes_shape)


def prior_boxes(feat_hw, img_hw, attrs):
    """prior_box: (boxes, variances) [H, W, P, 4], normalized by the image size."""
    step_w, step_h = _steps(attrs, feat_hw, img_hw)
    cx, cy = _centers(feat_hw, step_w, step_h, attrs["offset"])
    hw, hh = _prior_half_sizes(attrs)
    img_h, img_w = img_hw
    boxes = np.stack([(cx - hw) / img_w, (cy - hh) / img_h, (cx + hw) / img_w, (cy + hh) / img_h], axis=-1)
    if attrs["clip"]:
        boxes = np.clip(boxes, 0.0, 1.0)
    return boxes, _variances(boxes.shape, attrs)


def density_boxes(feat_hw, img_hw, attrs):
    """density_prior_box: (boxes, variances) [H, W, P, 4] ([H*W*P, 4] with flatten_to_2d). Each size
    with density d puts a d x d grid of boxes, ``shift`` apart, in every cell."""
    step_w, step_h = _steps(attrs, feat_hw, img_hw)
    cx, cy = _centers(feat_hw, step_w, step_h, attrs["offset"])
    step_avg = int((step_w + step_h) * 0.5)
    dx, dy, hw, hh = [], [], [], []
    for size, density in zip(attrs["fixed_sizes"], attrs["densities"]):
        shift = step_avg // density
        for ratio in attrs["fixed_ratios"]:
            for di in range(density):
                for dj in range(density):
                    dx.append(-step_avg / 2.0 + shift / 2.0 + dj * shift)
                    dy.append(-step_avg / 2.0 + shift / 2.0 + di * shift)
                    hw.append(size * np.sqrt(ratio) / 2.0)
                    hh.append(size / np.sqrt(ratio) / 2.0)
    dx, dy, hw, hh = (np.asarray(v, np.float64) for v in (dx, dy, hw, hh))
    img_h, img_w = img_hw
    x, y = cx + dx, cy + dy
    boxes = np.stack(
        [
            np.maximum((x - hw) / img_w, 0.0),
            np.maximum((y - hh) / img_h, 0.0),
            np.minimum((x + hw) / img_w, 1.0),
            np.minimum((y + hh) / img_h, 1.0),
        ],
        axis=-1,
    )
    if attrs["clip"]:
        boxes = np.clip(boxes, 0.0, 1.0)
    if attrs["flatten_to_2d"]:
        boxes = boxes.reshape(-1, 4)
    return boxes, _variances(boxes.shape, attrs)


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def anchors(feat_hw, attrs):
    """anchor_generator: (anchors, variances) [H, W, A, 4] in input pixels, per aspect ratio then size."""
    sw, sh = (float(s) for s in attrs["stride"])
    h, w = feat_hw
    cx = np.arange(w, dtype=np.float64)[None, :, None] * sw + attrs["offset"] * (sw - 1)
    cy = np.arange(h, dtype=np.float64)[:, None, None] * sh + attrs["offset"] * (sh - 1)
    cx, cy = np.broadcast_to(cx, (h, w, 1)), np.broadcast_to(cy, (h, w, 1))
    aw, ah = [], []
    for ar in attrs["aspect_ratios"]:
        for size in attrs["anchor_sizes"]:
            base_w = _round_half_away(np.sqrt(sw * sh / ar))
            base_h = _round_half_away(base_w * ar)
            aw.append(size / sw * base_w)
            ah.append(size / sh * base_h)
    aw, ah = np.asarray(aw, np.float64), np.asarray(ah, np.float64)
    boxes = np.stack([cx - 0.5 * (aw - 1), cy - 0.5 * (ah - 1), cx + 0.5 * (aw - 1), cy + 0.5 * (ah - 1)], axis=-1)
    return boxes, _variances(boxes.shape, attrs)


def clip_windows(rows, im_info, lod):
    """box_clip: per row of Input, the (x limit, y limit) of its image: round(width / scale) - 1 and
    round(height / scale) - 1. The images are Input's LoD sequences (the last level), or its rows."""
    info = np.asarray(im_info, np.float64)
    if lod:
        offs = np.asarray(lod[-1], np.int64)
        image = np.repeat(np.arange(offs.size - 1), np.diff(offs))
        if offs.size - 1 != info.shape[0]:
            raise PeError(
                f"box_clip: Input's LoD holds {offs.size - 1} images but ImInfo has {info.shape[0]} rows; "
                "give one ImInfo row per image"
            )
    elif info.shape[0] in (1, rows):
        image = np.arange(rows) if info.shape[0] != 1 else np.zeros(rows, np.int64)
    else:
        raise PeError(
            f"box_clip: Input has {rows} rows and no LoD but ImInfo has {info.shape[0]} rows; give "
            "Input a LoD (its boxes per image), one ImInfo row per Input row, or one ImInfo row"
        )
    x_max = _round_half_away(info[:, 1] / info[:, 2]) - 1
    y_max = _round_half_away(info[:, 0] / info[:, 2]) - 1
    return x_max[image], y_max[image]


_COUNTS = {"roi_pool": "RoisNum", "roi_align": "RoisNum", "prroi_pool": "BatchRoINums"}


def roi_images(op, rois_count, batch, ctx, counts=None):
    """int64 [R]: the image of each roi: from the per-image counts (``counts``, the op's RoisNum or
    BatchRoINums input, read on the host), else from the last level of the ROIs' LoD; one image
    needs neither."""
    lod = (ctx.lod.get("ROIs") or [None])[-1]
    if counts is not None:
        counts = np.asarray(counts, dtype=np.int64).reshape(-1)
        what = f"{_COUNTS.get(op, 'RoisNum')} {counts.tolist()}"
        offsets = np.concatenate([[0], np.cumsum(counts)])
    elif lod is not None:
        offsets = np.asarray(lod, dtype=np.int64)
        what = f"the ROIs' LoD {offsets.tolist()}"
    elif batch == 1:
        return np.zeros(rois_count, dtype=np.int64)
    else:
        count_arg = {
            "roi_pool": " or pass rois_num",
            "roi_align": " or pass rois_num",
            "prroi_pool": " or pass batch_roi_nums",
        }.get(op, "")
        raise PeError(
            f"{op}: X holds {batch} images but ROIs has no LoD saying which image each roi is in: "
            f"feed the rois as a LoDTensor with one level (rois per image){count_arg}"
        )
    if offsets.size - 1 != batch or offsets[-1] != rois_count or np.any(np.diff(offsets) < 0):
        raise PeError(f"{op}: {what} must give the rois of each of X's {batch} images, {rois_count} in all")
    return np.repeat(np.arange(batch, dtype=np.int64), np.diff(offsets))


def roi_counts(ins, counts_slot, host=np.asarray):
    """The rois per image an input gives: ``counts_slot`` (RoisNum / BatchRoINums), else Fluid 1.8's
    RoisLod (the offsets [N + 1]); None: the ROIs' LoD says."""
    if counts_slot in ins:
        return host(ins[counts_slot])
    return np.diff(host(ins["RoisLod"]).reshape(-1)) if "RoisLod" in ins else None


def psroi_sizes(x_shape, trans_shape, attrs):
    """int64 [13]: C, H, W, output_dim, PH, PW, group h, w, part h, w, sample_per_part, classes, no_trans."""
    no_trans = bool(attrs["no_trans"]) or trans_shape is None
    classes = 1 if no_trans else trans_shape[1] // 2
    return np.array(
        [
            x_shape[1],
            x_shape[2],
            x_shape[3],
            attrs["output_dim"],
            attrs["pooled_height"],
            attrs["pooled_width"],
            *attrs["group_size"],
            *attrs["part_size"],
            attrs["sample_per_part"],
            classes,
            int(no_trans),
        ],
        dtype=np.int64,
    )


def yolov3_loss_plan(x_shape, gt_shape, attrs):
    """(b, c, h, w, input_size, pos, neg, anchors int64, anchor_mask int64). A grid with H != W is refused, as
    Fluid 1.8.5 and Paddle 2.6.2 refuse it (their kernels take H for both axes)."""
    n, _, h, w = x_shape
    if h != w:
        raise PeError(f"yolov3_loss: X {list(x_shape)} must have H == W (a square grid), as Paddle requires")
    c = attrs["class_num"]
    pos, neg = 1.0, 0.0
    if attrs["use_label_smooth"]:
        smooth = min(1.0 / c, 1.0 / 40)
        pos, neg = 1.0 - smooth, smooth
    return (
        gt_shape[1],
        c,
        h,
        w,
        attrs["downsample_ratio"] * h,
        pos,
        neg,
        np.asarray(attrs["anchors"], dtype=np.int64),
        np.asarray(attrs["anchor_mask"], dtype=np.int64),
    )


def variance_rows(ins, attrs, rows, dtype):
    """[M, 4] variances: PriorBoxVar, the variance attribute on every row, or ones."""
    if "PriorBoxVar" in ins:
        return ins["PriorBoxVar"]
    v = attrs["variance"] or [1.0, 1.0, 1.0, 1.0]
    return np.broadcast_to(np.asarray(v, dtype=dtype), (rows, 4))


def target_assign_rows(ins, attrs, ctx):
    """(rows of X each output takes, or -1, and the (image, column) pairs NegIndices names)."""
    lod = ctx.lod.get("X")
    if not lod:
        raise PeError("target_assign: X needs a LoD (its rows per image)")
    offs = np.asarray(lod[-1], np.int64)
    match = np.asarray(ins["MatchIndices"]).astype(np.int64)
    n, m = match.shape
    if offs.size - 1 != n:
        raise PeError(f"target_assign: X's LoD holds {offs.size - 1} images but MatchIndices has {n} rows")
    src = np.where(match > -1, offs[:-1, None] + match, -1)
    neg_img = neg_col = np.zeros(0, np.int64)
    if "NegIndices" in ins:
        neg_lod = ctx.lod.get("NegIndices")
        if not neg_lod:
            raise PeError("target_assign: NegIndices needs a LoD (its indices per image)")
        noffs = np.asarray(neg_lod[-1], np.int64)
        neg_img = np.repeat(np.arange(noffs.size - 1), np.diff(noffs))
        neg_col = np.asarray(ins["NegIndices"]).reshape(-1).astype(np.int64)
    if (src >= offs[-1]).any() or (neg_col >= m).any() or (neg_col < 0).any():
        raise PeError("target_assign: an index lies outside X's rows of its image or MatchIndices' columns")
    return src, neg_img, neg_col
