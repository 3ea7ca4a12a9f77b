"""Fluid 1.8's NMS ops (paddle/fluid/operators/detection): multiclass_nms (and multiclass_nms2,
which also gives each kept box's index), matrix_nms, locality_aware_nms and
retinanet_detection_output (the RetinaNet head's detections from several FPN levels: per level the
best scores decoded from their anchors, per class NMS over all levels, the keep_top_k best per
image). None has a gradient in Fluid. Their outputs' rows and LoD depend on the data: the kernels
give both."""

from ..kernels.cpu import detection_nms as cpu_nms
from ..shapes import detection_nms as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register


# (Fluid's InferShape checks the boxes' width and count when the op runs: pe checks the ranks it reads when
# built, the rest when it runs)
def _infer_nms(ctx):
    boxes, scores, run = ctx.shape("BBoxes"), ctx.shape("Scores"), ctx.is_runtime
    if len(scores) == 3:
        if len(boxes) != 3 or run and boxes[2] != 4:
            ctx.fail(
                f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] for Scores [N, C, M] (polygon boxes are not supported)"
            )
        if run and boxes[1] != scores[2]:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    elif len(scores) == 2:
        if len(boxes) != 3 or run and boxes[2] != 4:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [M, C, 4] (a LoDTensor) for Scores [M, C]")
        if run and boxes[1] != scores[1]:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must have the same C classes")
    else:
        ctx.fail(f"Scores {fmt_shape(scores)} must be [N, C, M], or [M, C] with a LoD")
    ctx.set_output("Out", [-1, boxes[-1] + 2], ctx.dtype("BBoxes"), lod_level=1)
    ctx.set_output("Index", [-1, 1], "int32", lod_level=1)


_NMS_ATTRS = {
    "background_label": 0,
    "score_threshold": Attr(0.0),
    "nms_top_k": Attr(-1),
    "nms_threshold": 0.3,
    "nms_eta": Attr(1.0, lambda v: 0 < v <= 1, "in (0, 1]"),
    "keep_top_k": Attr(-1),
    "normalized": True,
}
_NMS_DOC = (
    "Per image and class (but background_label), greedy NMS of the boxes scoring above score_threshold "
    "(the nms_top_k best), then the keep_top_k best over the classes; Out [No, 6] rows (label, score, "
    "xmin, ymin, xmax, ymax) by class, a LoD over the images; one row [-1] (LoD [0, 1]) when nothing is "
    "kept."
)

register(
    "multiclass_nms",
    structured=Structured(meta=metas.multiclass_nms_meta, cpu=cpu_nms.multiclass_nms_out),
    kernel_module="detection_nms",
    inputs=["BBoxes", "Scores"],
    outputs=["Out"],
    attrs=_NMS_ATTRS,
    infer=_infer_nms,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    doc=_NMS_DOC,
)
register(
    "multiclass_nms2",
    structured=Structured(meta=metas.multiclass_nms2_meta, cpu=cpu_nms.multiclass_nms2_out),
    kernel_module="detection_nms",
    inputs=["BBoxes", "Scores"],
    outputs=["Out", "Index"],
    attrs=_NMS_ATTRS,
    infer=_infer_nms,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    traits=("paddle2_semantics",),
    doc="multiclass_nms's Out and LoD; Index [No, 1]: each kept box's row in the batch (Scores [N, C, M]: "
    "i * M + m; [M, C]: its row * C + its class). Nothing kept: Out and Index of shape [0] (what Fluid 1.8.5 "
    "fetches), or in a Paddle 2.x program [0, 6] and [0, 1] (Paddle 2.6's).",
)


def _infer_matrix(ctx):
    boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
    if len(scores) != 3 or len(boxes) != 3 or ctx.is_runtime and boxes[2] != 4:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] and Scores {fmt_shape(scores)} [N, C, M]")
    if ctx.is_runtime and boxes[1] != scores[2]:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    ctx.set_output("Out", [-1, 6], ctx.dtype("BBoxes"), lod_level=1)
    ctx.set_output("Index", [-1, 1], "int32", lod_level=1)
    ctx.set_output("RoisNum", [scores[0]], "int32", lod_level=0)


register(
    "matrix_nms",
    structured=Structured(meta=metas.matrix_nms_meta, cpu=cpu_nms.matrix_nms_out),
    kernel_module="detection_nms",
    inputs=["BBoxes", "Scores"],
    outputs=["Out", "Index", "RoisNum?"],
    attrs={
        "background_label": 0,
        "score_threshold": Attr(0.0),
        "post_threshold": 0.0,
        "nms_top_k": Attr(-1),
        "keep_top_k": Attr(-1),
        "normalized": True,
        "use_gaussian": False,
        "gaussian_sigma": 2.0,
    },
    infer=_infer_matrix,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    doc="Matrix NMS per image and class (but background_label): the nms_top_k boxes above score_threshold "
    "keep their score times a decay from their overlaps with better boxes (linear, or gaussian); those "
    "above post_threshold, the keep_top_k best per image, as Out [No, 6] rows (label, decayed score, box) "
    "in descending score, Index [No, 1] (image * M + box) with a LoD over the images, RoisNum [N].",
)


def _infer_locality(ctx):
    boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
    if len(scores) != 3 or len(boxes) != 3 or ctx.is_runtime and boxes[2] not in (4, 8, 16, 24, 32):
        ctx.fail(
            f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] (boxes) or [N, M, 8|16|24|32] (polygons of 4 to "
            f"16 points) and Scores {fmt_shape(scores)} [N, C, M]"
        )
    if ctx.is_runtime and boxes[1] != scores[2]:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    ctx.set_output("Out", [-1, boxes[2] + 2 if boxes[2] >= 0 else -1], ctx.dtype("BBoxes"), lod_level=1)


register(
    "locality_aware_nms",
    structured=Structured(meta=metas.locality_aware_nms_meta, cpu=cpu_nms.locality_aware_nms_out),
    kernel_module="detection_nms",
    inputs=["BBoxes", "Scores"],
    outputs=["Out"],
    attrs={**_NMS_ATTRS, "background_label": -1},
    infer=_infer_locality,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    doc="EAST's locality-aware NMS per image and class: consecutive boxes overlapping by more than "
    "nms_threshold merge (score-weighted, scores added), then multiclass_nms's greedy NMS and keep_top_k; "
    "Out [No, 6] with a LoD over the images, [[-1]] (LoD [0, 1]) when nothing is kept.",
)


def _infer_retinanet(ctx):
    n = ctx.num_inputs("BBoxes")
    if not n or ctx.num_inputs("Scores") != n or ctx.num_inputs("Anchors") != n:
        ctx.fail(
            f"BBoxes ({n}), Scores ({ctx.num_inputs('Scores')}) and Anchors ({ctx.num_inputs('Anchors')}) "
            f"must list the same FPN levels"
        )
    for b, s, a in zip(ctx.shapes("BBoxes"), ctx.shapes("Scores"), ctx.shapes("Anchors")):
        if ctx.is_runtime and (
            len(b) != 3 or b[2] != 4 or len(s) != 3 or len(a) != 2 or a[1] != 4 or not a[0] == b[1] == s[1]
        ):  # (Fluid checks the shapes when it runs)
            ctx.fail(
                f"each level's BBoxes {fmt_shape(b)} must be [N, M, 4], Scores {fmt_shape(s)} [N, M, C] and "
                f"Anchors {fmt_shape(a)} [M, 4]"
            )
    if ctx.is_runtime and len(ctx.shape("ImInfo")) != 2:
        ctx.fail(f"ImInfo {fmt_shape(ctx.shape('ImInfo'))} must be [N, 3] (height, width, scale)")
    ctx.set_output("Out", [-1, 6], ctx.dtype("Scores"), lod_level=1)


register(
    "retinanet_detection_output",
    structured=Structured(meta=metas.retinanet_detection_output_meta, cpu=cpu_nms.retinanet_detection_output_out),
    kernel_module="detection_nms",
    inputs=["BBoxes*", "Scores*", "Anchors*", "ImInfo"],
    outputs=["Out"],
    attrs={"score_threshold": 0.05, "nms_top_k": 1000, "nms_threshold": 0.3, "nms_eta": 1.0, "keep_top_k": 100},
    infer=_infer_retinanet,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    doc="Out [K, 6]: rows [label + 1, score, x1, y1, x2, y2] with a LoD sequence per image: per level the "
    "nms_top_k scores above score_threshold (the last level: above 0), decoded from their anchors and "
    "clipped to the image (ImInfo: height, width, scale; boxes in the original image), greedy NMS per "
    "class (nms_threshold, nms_eta), then the keep_top_k best of the image.",
)


def _infer_nms3(ctx):
    if ctx.has_input("RoisNum") and len(ctx.shape("Scores")) == 2:
        boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
        if len(boxes) != 3:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [M, C, 4] for Scores {fmt_shape(scores)} with RoisNum")
        ctx.set_output("Out", [-1, boxes[-1] + 2], ctx.dtype("BBoxes"), lod_level=1)
        ctx.set_output("Index", [-1, 1], "int32", lod_level=1)
    else:
        _infer_nms(ctx)
    n = ctx.shape("RoisNum")[0] if ctx.has_input("RoisNum") else ctx.shape("Scores")[0]
    ctx.set_output("NmsRoisNum", [n if len(ctx.shape("Scores")) == 3 or ctx.has_input("RoisNum") else -1], "int32")


register(
    "multiclass_nms3",
    structured=Structured(meta=metas.multiclass_nms3_meta, cpu=cpu_nms.multiclass_nms3_out),
    kernel_module="detection_nms",
    inputs=["BBoxes", "Scores", "RoisNum?"],
    outputs=["Out", "Index", "NmsRoisNum?"],
    attrs={**_NMS_ATTRS, "with_quant_attr": Attr(False)},
    infer=_infer_nms3,
    lod="drop",
    needs_lod=True,
    run_infer=True,
    doc="Paddle 2.x's multiclass_nms2: RoisNum (int32 [N]) gives each image's rows of 2-D Scores [M, C] "
    "instead of a LoD; NmsRoisNum = how many rows each image kept; nothing kept: Out [0, 6], Index [0, 1].",
)


register(
    "nms",
    structured=Structured(meta=metas.nms_meta, cpu=cpu_nms.nms_out),
    kernel_module="detection_nms",
    inputs=["Boxes"],
    outputs=["KeepBoxesIdxs"],
    lod="drop",
    attrs={"iou_threshold": Attr(1.0), "with_quant_attr": Attr(False)},
    infer=lambda ctx: ctx.set_output("KeepBoxesIdxs", [-1], "int64"),
    doc="KeepBoxesIdxs = the rows of Boxes [N, 4] (x1, y1, x2, y2; paddle.vision.ops.nms sorts them by score "
    "first) kept by greedy NMS in their order: a box is dropped when its IoU with a kept one exceeds "
    "iou_threshold.",
)
