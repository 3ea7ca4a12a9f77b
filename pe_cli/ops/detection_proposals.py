"""Region proposal ops of Fluid 1.8 (kernels in kernels/<device>/detection_proposals.py; their output
sizes depend on the data): generate_proposals (Faster R-CNN's RPN boxes per image), and the FPN pair
distribute_fpn_proposals (rois to pyramid levels by size) / collect_fpn_proposals (the top-scoring
rois of all levels back into one list per image). No gradients."""

from ..kernels.cpu import detection_proposals as cpu_kernels
from ..shapes import detection_proposals as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, is_int, register


def _infer_generate(ctx):
    s, d, info = ctx.shape("Scores"), ctx.shape("BboxDeltas"), ctx.shape("ImInfo")
    if len(s) != 4 or len(d) != 4 or (s[1] >= 0 and d[1] >= 0 and d[1] != 4 * s[1]):
        ctx.fail(f"Scores {fmt_shape(s)} must be [N, A, H, W] and BboxDeltas {fmt_shape(d)} [N, 4 * A, H, W]")
    if len(info) != 2 or info[1] not in (3, -1):
        ctx.fail(f"ImInfo {fmt_shape(info)} must be [N, 3] (height, width, scale)")
    for slot in ("Anchors", "Variances"):
        if list(ctx.shape(slot)[-1:]) not in ([4], [-1]):
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must be [H, W, A, 4]")
    dtype = ctx.dtype("Scores")
    ctx.set_output("RpnRois", [-1, 4], dtype, lod_level=1)
    ctx.set_output("RpnRoiProbs", [-1, 1], dtype, lod_level=1)
    ctx.set_output("RpnRoisNum", [s[0]], "int32", lod_level=0)
    ctx.set_output("RpnRoisLod", [s[0]], "int32", lod_level=0)


def _infer_distribute(ctx):
    rois, a = ctx.shape("FpnRois"), ctx.attrs
    if len(rois) != 2 or rois[1] not in (4, -1):
        ctx.fail(f"FpnRois {fmt_shape(rois)} must be [num_rois, 4]")
    levels = a["max_level"] - a["min_level"] + 1
    if levels < 1 or ctx.num_outputs("MultiFpnRois") != levels:
        ctx.fail(
            f"min_level={a['min_level']} .. max_level={a['max_level']} must give one MultiFpnRois output per "
            f"level ({ctx.num_outputs('MultiFpnRois')} given)"
        )
    for i in range(levels):
        ctx.set_output("MultiFpnRois", [-1, 4], ctx.dtype("FpnRois"), i=i, lod_level=1)
    ctx.set_output("RestoreIndex", [rois[0], 1], "int32", lod_level=0)


def _infer_collect(ctx):
    n_rois, n_scores = ctx.num_inputs("MultiLevelRois"), ctx.num_inputs("MultiLevelScores")
    if n_rois != n_scores or not n_rois:
        ctx.fail(f"MultiLevelRois ({n_rois}) and MultiLevelScores ({n_scores}) must list the same levels")
    for r, s in zip(ctx.shapes("MultiLevelRois"), ctx.shapes("MultiLevelScores")):
        if len(r) != 2 or r[1] not in (4, -1) or len(s) != 2 or s[1] not in (1, -1):
            ctx.fail(f"each level's rois {fmt_shape(r)} must be [R, 4] and scores {fmt_shape(s)} [R, 1]")
    ctx.set_output("FpnRois", [-1, 4], ctx.dtype("MultiLevelRois"), lod_level=1)


register(
    "generate_proposals",
    structured=Structured(meta=metas.generate_proposals_meta, cpu=cpu_kernels.generate_proposals_out),
    kernel_module="detection_proposals",
    inputs=["Scores", "BboxDeltas", "ImInfo", "Anchors", "Variances"],
    outputs=["RpnRois", "RpnRoiProbs", "RpnRoisNum?", "RpnRoisLod?"],
    attrs={"pre_nms_topN": 6000, "post_nms_topN": 1000, "nms_thresh": 0.5, "min_size": 0.1, "eta": 1.0},
    infer=_infer_generate,
    lod="drop",
    needs_lod=True,
    doc="Per image: the pre_nms_topN best-scored anchors decoded by BboxDeltas (scaled by Variances), "
    "clipped to the image (ImInfo: height, width, scale), those under min_size in the original image "
    "or centred outside dropped, then greedy NMS (nms_thresh; eta < 1 shrinks it) keeps post_nms_topN. "
    "RpnRois [R, 4] and RpnRoiProbs [R, 1] have one LoD sequence per image (an image with no box left "
    "gets one zero box, score 0, as Fluid); RpnRoisNum (Fluid 1.8's RpnRoisLod): rois per image.",
)
_INT = Attr(0, is_int, "an int")
register(
    "distribute_fpn_proposals",
    structured=Structured(meta=metas.distribute_fpn_proposals_meta, cpu=cpu_kernels.distribute_fpn_proposals_out),
    kernel_module="detection_proposals",
    inputs=["FpnRois"],
    outputs=["MultiFpnRois*", "RestoreIndex"],
    attrs={
        "min_level": _INT,
        "max_level": _INT,
        "refer_level": _INT,
        "refer_scale": Attr(224, lambda v: is_int(v) and v > 0, "an int > 0"),
        "pixel_offset": Attr(True, lambda v: isinstance(v, bool), "a bool"),
    },
    infer=_infer_distribute,
    lod="drop",
    needs_lod=True,
    doc="Each roi goes to level floor(log2(sqrt(area) / refer_scale) + refer_level), clipped to "
    "[min_level, max_level] (area of (x2 - x1 + 1) x (y2 - y1 + 1), Fluid 1.8's; with pixel_offset "
    "false, Paddle 2.x's default, without the + 1): MultiFpnRois[level] keeps its rois in order, "
    "a LoD sequence per image; "
    "RestoreIndex [R, 1]: where each roi is in the levels' outputs concatenated.",
)
register(
    "collect_fpn_proposals",
    structured=Structured(meta=metas.collect_fpn_proposals_meta, cpu=cpu_kernels.collect_fpn_proposals_out),
    kernel_module="detection_proposals",
    inputs=["MultiLevelRois*", "MultiLevelScores*"],
    outputs=["FpnRois"],
    attrs={"post_nms_topN": Attr(100, lambda v: is_int(v) and v >= 0, "an int >= 0")},
    infer=_infer_collect,
    lod="drop",
    needs_lod=True,
    doc="The post_nms_topN best-scored rois of all levels and images together (ties in level order), "
    "grouped by image in score order: FpnRois [K, 4] with a LoD sequence per image.",
)


def _infer_generate_v2(ctx):
    s, d, shape = ctx.shape("Scores"), ctx.shape("BboxDeltas"), ctx.shape("ImShape")
    if len(s) != 4 or len(d) != 4 or (s[1] >= 0 and d[1] >= 0 and d[1] != 4 * s[1]):
        ctx.fail(f"Scores {fmt_shape(s)} must be [N, A, H, W] and BboxDeltas {fmt_shape(d)} [N, 4 * A, H, W]")
    if len(shape) != 2 or shape[1] not in (2, -1):
        ctx.fail(f"ImShape {fmt_shape(shape)} must be [N, 2] (height, width)")
    dtype = ctx.dtype("Scores")
    ctx.set_output("RpnRois", [-1, 4], dtype, lod_level=1)
    ctx.set_output("RpnRoiProbs", [-1, 1], dtype, lod_level=1)
    ctx.set_output("RpnRoisNum", [s[0]], "int32", lod_level=0)


register(
    "generate_proposals_v2",
    structured=Structured(meta=metas.generate_proposals_v2_meta, cpu=cpu_kernels.generate_proposals_v2_out),
    kernel_module="detection_proposals",
    inputs=["Scores", "BboxDeltas", "ImShape", "Anchors", "Variances"],
    outputs=["RpnRois", "RpnRoiProbs", "RpnRoisNum?"],
    attrs={
        "pre_nms_topN": 6000,
        "post_nms_topN": 1000,
        "nms_thresh": 0.5,
        "min_size": 0.1,
        "eta": 1.0,
        # pixel_offset False (boxes without Fluid's +1 in their sizes) is not computed
        "pixel_offset": Attr(True, choices=(True,)),
        "with_quant_attr": Attr(False),
    },
    infer=_infer_generate_v2,
    lod="drop",
    needs_lod=True,
    doc="generate_proposals with ImShape [N, 2] (height, width) for ImInfo: min_size in the image's own "
    "pixels (what PaddleDetection's exported two-stage models hold).",
)
