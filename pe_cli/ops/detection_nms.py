"""Fluid 1.8's NMS and matching ops (paddle/fluid/operators/detection): multiclass_nms (and
multiclass_nms2, which also gives each kept box's index), matrix_nms, locality_aware_nms,
bipartite_match, target_assign and mine_hard_examples (ssd_loss's negative mining). None has a
gradient in Fluid. The NMS and mining outputs' rows and LoD depend on the data: the kernels give
both."""
from .define import Attr, fmt_shape, register


def _infer_nms(ctx):
    boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
    if len(scores) == 3:
        if len(boxes) != 3 or boxes[2] != 4:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] for Scores [N, C, M] (polygon boxes are not "
                     "supported)")
        if boxes[1] >= 0 and scores[2] >= 0 and boxes[1] != scores[2]:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    elif len(scores) == 2:
        if len(boxes) != 3 or boxes[2] != 4:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [M, C, 4] (a LoDTensor) for Scores [M, C]")
        if boxes[1] >= 0 and scores[1] >= 0 and boxes[1] != scores[1]:
            ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must have the same C classes")
    else:
        ctx.fail(f"Scores {fmt_shape(scores)} must be [N, C, M], or [M, C] with a LoD")
    ctx.set_output("Out", [-1, boxes[-1] + 2], ctx.dtype("BBoxes"), lod_level=1)
    ctx.set_output("Index", [-1, 1], "int32", lod_level=1)


_NMS_ATTRS = {"background_label": 0, "score_threshold": Attr(0.0), "nms_top_k": Attr(-1),
              "nms_threshold": 0.3, "nms_eta": Attr(1.0, lambda v: 0 < v <= 1, "in (0, 1]"),
              "keep_top_k": Attr(-1), "normalized": True}
_NMS_DOC = ("Per image and class (but background_label), greedy NMS of the boxes scoring above score_threshold "
            "(the nms_top_k best), then the keep_top_k best over the classes; Out [No, 6] rows (label, score, "
            "xmin, ymin, xmax, ymax) by class, a LoD over the images; one row [-1] (LoD [0, 1]) when nothing is "
            "kept.")

register("multiclass_nms", kernel_module="detection_nms", inputs=["BBoxes", "Scores"], outputs=["Out"],
         attrs=_NMS_ATTRS, infer=_infer_nms, lod="drop", needs_lod=True, doc=_NMS_DOC)
register("multiclass_nms2", kernel_module="detection_nms", inputs=["BBoxes", "Scores"], outputs=["Out", "Index"],
         attrs=_NMS_ATTRS, infer=_infer_nms, lod="drop", needs_lod=True,
         doc="multiclass_nms's Out and LoD (nothing kept: Out [0, 6]); Index [No, 1]: each kept box's row in "
             "the batch (Scores [N, C, M]: i * M + m; [M, C]: its row * C + its class).")


def _infer_match(ctx):
    dist = ctx.shape("DistMat")
    if len(dist) != 2:
        ctx.fail(f"DistMat {fmt_shape(dist)} must be 2-D [K, M] (rows per instance in its LoD)")
    rows = -1 if ctx.input_var("DistMat").lod_level else 1
    ctx.set_output("ColToRowMatchIndices", [rows, dist[1]], "int32", lod_level=0)
    ctx.set_output("ColToRowMatchDist", [rows, dist[1]], ctx.dtype("DistMat"), lod_level=0)


register("bipartite_match", kernel_module="detection_nms", inputs=["DistMat"],
         outputs=["ColToRowMatchIndices", "ColToRowMatchDist"],
         attrs={"match_type": Attr("bipartite", choices=("bipartite", "per_prediction")), "dist_threshold": 0.5},
         infer=_infer_match, lod="drop", needs_lod=True,
         doc="Per instance (a LoD sequence of DistMat's rows, or all of them), greedy bipartite matching of "
             "columns to rows by the largest distance; per_prediction then gives each unmatched column its best "
             "row at or above dist_threshold. [N, M]: the matched row (int32, -1: none) and its distance.")


def _infer_assign(ctx):
    x, match = ctx.shape("X"), ctx.shape("MatchIndices")
    if len(x) != 3:
        ctx.fail(f"X {fmt_shape(x)} must be 3-D [rows, P, K] with a LoD over the images")
    if len(match) != 2:
        ctx.fail(f"MatchIndices {fmt_shape(match)} must be 2-D [N, M]")
    if ctx.dtype("MatchIndices") != "int32":
        ctx.fail(f"MatchIndices is {ctx.dtype('MatchIndices')}; it must be int32 (bipartite_match's output)")
    if ctx.has_input("NegIndices") and ctx.dtype("NegIndices") != "int32":
        ctx.fail(f"NegIndices is {ctx.dtype('NegIndices')}; it must be int32")
    ctx.set_output("Out", [match[0], match[1], x[2]], ctx.dtype("X"), lod_level=0)
    ctx.set_output("OutWeight", [match[0], match[1], 1], "float32", lod_level=0)


register("target_assign", kernel_module="detection_nms", inputs=["X", "MatchIndices", "NegIndices?"],
         outputs=["Out", "OutWeight"], attrs={"mismatch_value": 0}, infer=_infer_assign, lod="drop", needs_lod=True,
         doc="Out[i, j] = X[lod[i] + MatchIndices[i, j], j % P] with weight 1 where matched, else mismatch_value "
             "with weight 0; each NegIndices column of image i: mismatch_value with weight 1.")


def _infer_mine(ctx):
    cls, match, dist = ctx.shape("ClsLoss"), ctx.shape("MatchIndices"), ctx.shape("MatchDist")
    shapes = [cls, match, dist] + ([ctx.shape("LocLoss")] if ctx.has_input("LocLoss") else [])
    if any(len(s) != 2 for s in shapes):
        ctx.fail(f"ClsLoss {fmt_shape(cls)}, MatchIndices {fmt_shape(match)} and MatchDist {fmt_shape(dist)} "
                 "(and LocLoss) must all be [N, Np]")
    a = ctx.attrs
    if a["mining_type"] == "max_negative" and not (a["neg_pos_ratio"] > 0 and 0 < a["neg_dist_threshold"] < 1):
        ctx.fail("max_negative mining needs neg_pos_ratio > 0 and neg_dist_threshold in (0, 1)")
    if a["mining_type"] == "hard_example" and not a["sample_size"] > 0:
        ctx.fail("hard_example mining needs sample_size > 0")
    ctx.set_output("NegIndices", [-1, 1], "int32", lod_level=1)
    ctx.set_output("UpdatedMatchIndices", match, "int32", lod_level=0)


register("mine_hard_examples", kernel_module="detection_nms",
         inputs=["ClsLoss", "LocLoss?", "MatchIndices", "MatchDist"], outputs=["NegIndices", "UpdatedMatchIndices"],
         attrs={"neg_pos_ratio": 1.0, "neg_dist_threshold": 0.5, "sample_size": 0,
                "mining_type": Attr("max_negative", choices=("max_negative", "hard_example"))},
         infer=_infer_mine, lod="drop", needs_lod=True,
         doc="Per image, the highest-loss eligible priors as negatives (max_negative: unmatched with MatchDist "
             "below neg_dist_threshold, at most neg_pos_ratio per positive; hard_example: any, at most "
             "sample_size, unselected positives unmatched): NegIndices [Neg, 1] with a LoD over the images.")


def _infer_matrix(ctx):
    boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
    if len(scores) != 3 or len(boxes) != 3 or boxes[2] != 4:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] and Scores {fmt_shape(scores)} [N, C, M]")
    if boxes[1] >= 0 and scores[2] >= 0 and boxes[1] != scores[2]:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    ctx.set_output("Out", [-1, 6], ctx.dtype("BBoxes"), lod_level=1)
    ctx.set_output("Index", [-1, 1], "int32", lod_level=1)
    ctx.set_output("RoisNum", [scores[0]], "int32", lod_level=0)


register("matrix_nms", kernel_module="detection_nms", inputs=["BBoxes", "Scores"], outputs=["Out", "Index",
                                                                                             "RoisNum?"],
         attrs={"background_label": 0, "score_threshold": Attr(0.0), "post_threshold": 0.0, "nms_top_k": Attr(-1),
                "keep_top_k": Attr(-1), "normalized": True, "use_gaussian": False, "gaussian_sigma": 2.0},
         infer=_infer_matrix, lod="drop", needs_lod=True,
         doc="Matrix NMS per image and class (but background_label): the nms_top_k boxes above score_threshold "
             "keep their score times a decay from their overlaps with better boxes (linear, or gaussian); those "
             "above post_threshold, the keep_top_k best per image, as Out [No, 6] rows (label, decayed score, box) "
             "in descending score, Index [No, 1] (image * M + box) with a LoD over the images, RoisNum [N].")


def _infer_locality(ctx):
    boxes, scores = ctx.shape("BBoxes"), ctx.shape("Scores")
    if len(scores) != 3 or len(boxes) != 3 or boxes[2] != 4:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} must be [N, M, 4] and Scores {fmt_shape(scores)} [N, C, M] (polygon "
                 "boxes are not supported)")
    if boxes[1] >= 0 and scores[2] >= 0 and boxes[1] != scores[2]:
        ctx.fail(f"BBoxes {fmt_shape(boxes)} and Scores {fmt_shape(scores)} must count the same M boxes")
    ctx.set_output("Out", [-1, 6], ctx.dtype("BBoxes"), lod_level=1)


register("locality_aware_nms", kernel_module="detection_nms", inputs=["BBoxes", "Scores"], outputs=["Out"],
         attrs={**_NMS_ATTRS, "background_label": -1}, infer=_infer_locality, lod="drop", needs_lod=True,
         doc="EAST's locality-aware NMS per image and class: consecutive boxes overlapping by more than "
             "nms_threshold merge (score-weighted, scores added), then multiclass_nms's greedy NMS and keep_top_k; "
             "Out [No, 6] with a LoD over the images, [[-1]] (LoD [0, 1]) when nothing is kept.")
