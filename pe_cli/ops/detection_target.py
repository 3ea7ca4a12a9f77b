"""rpn_target_assign and retinanet_target_assign of Fluid 1.8 (kernels in
kernels/<device>/detection_target.py): Faster R-CNN's RPN training targets: per image, anchors (inside
the image by rpn_straddle_thresh) matched to the non-crowd gt boxes by IoU, a sampled minibatch of
foreground and background anchors, their labels and regression targets (retinanet: every candidate
anchor, labelled with its gt box's class). No gradient."""
from .registry import Attr, fmt_shape, is_int, register


def _infer(ctx):
    """Both ops' outputs (retinanet's ForegroundNumber too)."""
    anchor, gt, info = ctx.shape("Anchor"), ctx.shape("GtBoxes"), ctx.shape("ImInfo")
    if len(anchor) != 2 or anchor[1] != 4:
        ctx.fail(f"Anchor {fmt_shape(anchor)} must be [H * W * A, 4]")
    if len(gt) != 2 or gt[1] != 4:
        ctx.fail(f"GtBoxes {fmt_shape(gt)} must be [G, 4] with a LoD sequence per image")
    if len(info) != 2:
        ctx.fail(f"ImInfo {fmt_shape(info)} must be [N, 3] (height, width, scale)")
    dtype = ctx.dtype("Anchor")
    ctx.set_output("LocationIndex", [-1], "int32", lod_level=1)
    ctx.set_output("ScoreIndex", [-1], "int32", lod_level=1)
    ctx.set_output("TargetBBox", [-1, 4], dtype, lod_level=1)
    ctx.set_output("TargetLabel", [-1, 1], "int32", lod_level=1)
    ctx.set_output("BBoxInsideWeight", [-1, 4], dtype, lod_level=1)
    ctx.set_output("ForegroundNumber", [info[0], 1], "int32", lod_level=1)


register("rpn_target_assign", kernel_module="detection_target", inputs=["Anchor", "GtBoxes", "IsCrowd", "ImInfo"],
         outputs=["LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight"],
         attrs={"rpn_batch_size_per_im": Attr(256, lambda v: is_int(v) and v > 0, "an int > 0"),
                "rpn_straddle_thresh": 0.0, "rpn_positive_overlap": 0.7, "rpn_negative_overlap": 0.3,
                "rpn_fg_fraction": 0.25, "use_random": True},
         infer=_infer, lod="drop", needs_lod=True, needs_rng=True,
         doc="Per image: foreground anchors (the best for some gt box, or IoU >= rpn_positive_overlap; at most "
             "rpn_fg_fraction of rpn_batch_size_per_im, reservoir-sampled when use_random) and background anchors "
             "(IoU < rpn_negative_overlap, the rest of the minibatch). ScoreIndex: their indexes in the batch's "
             "anchors (N * A), foreground first, with TargetLabel 1 / 0; LocationIndex, TargetBBox (box deltas "
             "to the best gt box) and BBoxInsideWeight for the foreground, each a LoD sequence per image.")
register("retinanet_target_assign", kernel_module="detection_target",
         inputs=["Anchor", "GtBoxes", "GtLabels", "IsCrowd", "ImInfo"],
         outputs=["LocationIndex", "ScoreIndex", "TargetBBox", "TargetLabel", "BBoxInsideWeight", "ForegroundNumber"],
         attrs={"positive_overlap": 0.5, "negative_overlap": 0.4}, infer=_infer, lod="drop", needs_lod=True,
         doc="As rpn_target_assign without sampling or the straddle filter: every anchor that is the best for a "
             "gt box or overlaps one by positive_overlap is foreground, labelled with that box's class (GtLabels), "
             "every anchor below negative_overlap background (label 0); ForegroundNumber [N, 1]: each image's "
             "location rows + 1 (the focal loss's normalizer, as Fluid's).")
