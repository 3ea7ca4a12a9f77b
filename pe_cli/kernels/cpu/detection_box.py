"""CPU out-kernels of ops/detection_box.py (structured kernels; their meta rules: shapes/detection_boxes.py), numpy
over whole box arrays: the generators' boxes (prior_box, density_prior_box, anchor_generator: the rule computes them
from the shapes, shapes/detection.py) cast into the buffers handed; iou_similarity and polygon_box_transform
written through out=; box_coder, box_clip and box_decoder_and_assign numpy forms whose results are handed over
(``fresh_output``)."""

import numpy as np

from ...shapes import detection as geo
from ...shapes.detection import variance_rows
from ...shapes import detection_boxes as box_rules
from ..structured import adapter, fresh_output
from .launches import by_variant


def _boxes(names):
    """The "boxes" variant: the generator's float64 boxes and variances (``meta.args``) cast into the buffers."""

    def out(ins, outs, attrs, meta):
        for name, made in zip(names, meta.args):
            np.copyto(outs[name], made, casting="unsafe")

    return out


def _put(outs, meta, ins, **results):
    for slot, result in results.items():
        outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))


def _iou_similarity(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    a, b = x[:, None, :], y[None, :, :]
    plus = 0 if attrs["box_normalized"] else 1
    area_x = (a[..., 3] - a[..., 1] + plus) * (a[..., 2] - a[..., 0] + plus)
    area_y = (b[..., 3] - b[..., 1] + plus) * (b[..., 2] - b[..., 0] + plus)
    inter_w = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + plus, 0)
    inter_h = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + plus, 0)
    inter = inter_w * inter_h
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(inter, area_x + area_y - inter, out=outs["Out"], casting="unsafe")


def prior_terms(prior, normalized):
    """Each prior's (center x, center y, width, height), +1 on sizes for pixel boxes."""
    plus = 0 if normalized else 1
    pw = prior[:, 2] - prior[:, 0] + plus
    ph = prior[:, 3] - prior[:, 1] + plus
    return prior[:, 0] + pw / 2, prior[:, 1] + ph / 2, pw, ph


def _box_coder(ins, outs, attrs, meta):
    prior, target = ins["PriorBox"], ins["TargetBox"]
    var = variance_rows(ins, attrs, prior.shape[0], target.dtype)
    px, py, pw, ph = prior_terms(prior, attrs["box_normalized"])
    plus = 0 if attrs["box_normalized"] else 1
    if attrs["code_type"] == "encode_center_size":
        tx = ((target[:, 2] + target[:, 0]) / 2)[:, None]
        ty = ((target[:, 3] + target[:, 1]) / 2)[:, None]
        tw = (target[:, 2] - target[:, 0] + plus)[:, None]
        th = (target[:, 3] - target[:, 1] + plus)[:, None]
        with np.errstate(divide="ignore"):
            out = np.stack(
                [
                    (tx - px) / pw / var[:, 0],
                    (ty - py) / ph / var[:, 1],
                    np.log(np.abs(tw / pw)) / var[:, 2],
                    np.log(np.abs(th / ph)) / var[:, 3],
                ],
                axis=-1,
            )
    else:
        along = (slice(None), None) if attrs["axis"] == 1 else (None, slice(None))
        px, py, pw, ph = px[along], py[along], pw[along], ph[along]
        v = var[along]
        cx = v[..., 0] * target[..., 0] * pw + px
        cy = v[..., 1] * target[..., 1] * ph + py
        w = np.exp(v[..., 2] * target[..., 2]) * pw
        h = np.exp(v[..., 3] * target[..., 3]) * ph
        out = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - plus, cy + h / 2 - plus], axis=-1)
    _put(outs, meta, ins, OutputBox=out)


def _box_clip(ins, outs, attrs, meta, ctx):
    """The clip windows of Input's images (its LoD: the call's, ``ctx``)."""
    x = ins["Input"]
    rows = x.shape[0]
    x_max, y_max = geo.clip_windows(rows, ins["ImInfo"], ctx.lod.get("Input"))
    lim = np.stack([x_max, y_max, x_max, y_max], axis=-1).reshape((rows,) + (1,) * (x.ndim - 2) + (4,))
    _put(outs, meta, ins, Output=np.maximum(np.minimum(x, lim), 0))


_box_clip.takes_context = True


def _polygon_box_transform(ins, outs, attrs, meta):
    """Output = 4 * the channel's grid (``meta.args``) - Input."""
    np.subtract(meta.args[0], ins["Input"], out=outs["Output"], casting="unsafe")


def _box_decoder_and_assign(ins, outs, attrs, meta):
    prior, target, score = ins["PriorBox"], ins["TargetBox"], ins["BoxScore"]
    var = np.asarray(ins["PriorBoxVar"]).reshape(-1)
    w = prior[:, 2] - prior[:, 0] + 1
    h = prior[:, 3] - prior[:, 1] + 1
    cx, cy = (prior[:, 0] + w / 2)[:, None], (prior[:, 1] + h / 2)[:, None]
    w, h = w[:, None], h[:, None]
    clip = target.dtype.type(attrs["box_clip"])
    px = var[0] * target[:, 0::4] * w + cx
    py = var[1] * target[:, 1::4] * h + cy
    pw = np.exp(np.minimum(var[2] * target[:, 2::4], clip)) * w
    ph = np.exp(np.minimum(var[3] * target[:, 3::4], clip)) * h
    decoded = np.stack([px - pw / 2, py - ph / 2, px + pw / 2 - 1, py + ph / 2 - 1], axis=-1)  # [N, C, 4]
    rois = np.arange(len(prior))
    if score.shape[1] > 1:
        best = np.argmax(score[:, 1:], axis=1) + 1  # the first of equal maxima, as Fluid's loop
        found = score[rois, best] > -1  # Fluid's search starts from a score of -1
        assigned = np.where(found[:, None], decoded[rois, best], prior)
    else:
        assigned = prior
    _put(outs, meta, ins, DecodeBox=decoded.reshape(target.shape), OutputAssignBox=assigned)


PRIOR_BOX = DENSITY_PRIOR_BOX = by_variant("prior_boxes_out", None, boxes=_boxes(("Boxes", "Variances")))
ANCHOR_GENERATOR = by_variant("anchor_generator_out", None, boxes=_boxes(("Anchors", "Variances")))
IOU_SIMILARITY = by_variant("iou_similarity_out", None, out=_iou_similarity)
BOX_CODER = by_variant("box_coder_out", None, fresh=_box_coder)
BOX_CLIP = _box_clip
POLYGON_BOX_TRANSFORM = by_variant("polygon_box_transform_out", None, out=_polygon_box_transform)
BOX_DECODER_AND_ASSIGN = by_variant("box_decoder_and_assign_out", None, fresh=_box_decoder_and_assign)

# the generators as ``kernel(ins, attrs)``, for CUDA's host rows (kernels/cuda/detection_box.py's HOST_OPS)
prior_box = adapter(box_rules.prior_box_meta, PRIOR_BOX, "prior_box")
density_prior_box = adapter(box_rules.density_prior_box_meta, DENSITY_PRIOR_BOX, "density_prior_box")
anchor_generator = adapter(box_rules.anchor_generator_meta, ANCHOR_GENERATOR, "anchor_generator")
