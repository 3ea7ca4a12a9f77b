"""retinanet_detection_output of Fluid 1.8 (kernels in kernels/<device>/detection_retinanet.py): the
RetinaNet head's detections from several FPN levels: per level the best scores decoded from their
anchors, per class NMS over all levels, the keep_top_k best per image. No gradient."""
from .define import fmt_shape, register


def _infer(ctx):
    n = ctx.num_inputs("BBoxes")
    if not n or ctx.num_inputs("Scores") != n or ctx.num_inputs("Anchors") != n:
        ctx.fail(f"BBoxes ({n}), Scores ({ctx.num_inputs('Scores')}) and Anchors ({ctx.num_inputs('Anchors')}) "
                 f"must list the same FPN levels")
    for b, s, a in zip(ctx.shapes("BBoxes"), ctx.shapes("Scores"), ctx.shapes("Anchors")):
        if len(b) != 3 or b[2] != 4 or len(s) != 3 or len(a) != 2 or a[1] != 4 or (
                b[1] >= 0 and s[1] >= 0 and b[1] != s[1]):
            ctx.fail(f"each level's BBoxes {fmt_shape(b)} must be [N, M, 4], Scores {fmt_shape(s)} [N, M, C] and "
                     f"Anchors {fmt_shape(a)} [M, 4]")
    if len(ctx.shape("ImInfo")) != 2:
        ctx.fail(f"ImInfo {fmt_shape(ctx.shape('ImInfo'))} must be [N, 3] (height, width, scale)")
    ctx.set_output("Out", [-1, 6], ctx.dtype("Scores"), lod_level=1)


register("retinanet_detection_output", kernel_module="detection_retinanet",
         inputs=["BBoxes*", "Scores*", "Anchors*", "ImInfo"], outputs=["Out"],
         attrs={"score_threshold": 0.05, "nms_top_k": 1000, "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": 100},
         infer=_infer, lod="drop", needs_lod=True,
         doc="Out [K, 6]: rows [label + 1, score, x1, y1, x2, y2] with a LoD sequence per image: per level the "
             "nms_top_k scores above score_threshold (the last level: above 0), decoded from their anchors and "
             "clipped to the image (ImInfo: height, width, scale; boxes in the original image), greedy NMS per "
             "class (nms_threshold, nms_eta), then the keep_top_k best of the image.")
