"""SSD's matching ops of Fluid 1.8 (paddle/fluid/operators/detection; kernels in
kernels/<device>/detection_match.py), the targets side of ssd_loss: bipartite_match (each column,
a prior, matched to a row, a ground-truth box, greedily by distance), target_assign (each prior's
target row, or mismatch_value, and its weight) and mine_hard_examples (the negatives ssd_loss
trains on). None has a gradient in Fluid. mine_hard_examples' output rows and LoD depend on the
data: the out-kernel gives both."""

from ..kernels.cpu import detection_match as cpu_match
from ..shapes import detection_targets as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register


def _infer_match(ctx):
    dist = ctx.shape("DistMat")
    if len(dist) != 2:
        ctx.fail(f"DistMat {fmt_shape(dist)} must be 2-D [K, M] (rows per instance in its LoD)")
    rows = -1 if ctx.input_var("DistMat").lod_level else 1
    ctx.set_output("ColToRowMatchIndices", [rows, dist[1]], "int32", lod_level=0)
    ctx.set_output("ColToRowMatchDist", [rows, dist[1]], ctx.dtype("DistMat"), lod_level=0)


register(
    "bipartite_match",
    kernel_module="detection_match",
    inputs=["DistMat"],
    outputs=["ColToRowMatchIndices", "ColToRowMatchDist"],
    attrs={"match_type": Attr("bipartite", choices=("bipartite", "per_prediction")), "dist_threshold": 0.5},
    infer=_infer_match,
    lod="drop",
    structured=Structured(meta=metas.bipartite_match_meta, cpu=cpu_match.bipartite_match_out),
    needs_lod=True,
    doc="Per instance (a LoD sequence of DistMat's rows, or all of them), greedy bipartite matching of "
    "columns to rows by the largest distance; per_prediction then gives each unmatched column its best "
    "row at or above dist_threshold. [N, M]: the matched row (int32, -1: none) and its distance.",
)


def _infer_assign(ctx):
    x, match = ctx.shape("X"), ctx.shape("MatchIndices")
    if len(x) != 3:
        ctx.fail(f"X {fmt_shape(x)} must be 3-D [rows, P, K] with a LoD over the images")
    if len(match) != 2:
        ctx.fail(f"MatchIndices {fmt_shape(match)} must be 2-D [N, M]")
    ctx.set_output("Out", [match[0], match[1], x[2]], ctx.dtype("X"), lod_level=0)
    ctx.set_output("OutWeight", [match[0], match[1], 1], "float32", lod_level=0)


register(
    "target_assign",
    kernel_module="detection_match",
    inputs=["X", "MatchIndices", "NegIndices?"],
    outputs=["Out", "OutWeight"],
    attrs={"mismatch_value": 0},
    infer=_infer_assign,
    lod="drop",
    structured=Structured(meta=metas.target_assign_meta, cpu=cpu_match.target_assign_out),
    needs_lod=True,
    run_dtypes={"MatchIndices": ("int32",), "NegIndices": ("int32",)},
    doc="Out[i, j] = X[lod[i] + MatchIndices[i, j], j % P] with weight 1 where matched, else mismatch_value "
    "with weight 0; each NegIndices column of image i: mismatch_value with weight 1.",
)


def _infer_mine(ctx):
    cls, match, dist = ctx.shape("ClsLoss"), ctx.shape("MatchIndices"), ctx.shape("MatchDist")
    shapes = [cls, match, dist] + ([ctx.shape("LocLoss")] if ctx.has_input("LocLoss") else [])
    if any(len(s) != 2 for s in shapes):
        ctx.fail(
            f"ClsLoss {fmt_shape(cls)}, MatchIndices {fmt_shape(match)} and MatchDist {fmt_shape(dist)} "
            "(and LocLoss) must all be [N, Np]"
        )
    if ctx.is_runtime and (any(list(s) != list(cls) for s in shapes[1:2] + shapes[3:]) or dist[0] != cls[0]):
        named = ", ".join(
            f"{n} {fmt_shape(ctx.shape(n))}" for n in ("MatchIndices", "MatchDist", "LocLoss") if ctx.has_input(n)
        )  # (Fluid compares them when it runs)
        ctx.fail(f"{named}: must be ClsLoss's [N, Np] = {fmt_shape(cls)} (MatchDist's N)")
    a = ctx.attrs
    if a["mining_type"] == "max_negative" and not (a["neg_pos_ratio"] > 0 and 0 < a["neg_dist_threshold"] < 1):
        ctx.fail("max_negative mining needs neg_pos_ratio > 0 and neg_dist_threshold in (0, 1)")
    if a["mining_type"] == "hard_example" and not a["sample_size"] > 0:
        ctx.fail("hard_example mining needs sample_size > 0")
    ctx.set_output("NegIndices", [-1, 1], "int32", lod_level=1)
    ctx.set_output("UpdatedMatchIndices", match, "int32", lod_level=0)


register(
    "mine_hard_examples",
    kernel_module="detection_match",
    inputs=["ClsLoss", "LocLoss?", "MatchIndices", "MatchDist"],
    outputs=["NegIndices", "UpdatedMatchIndices"],
    attrs={
        "neg_pos_ratio": 1.0,
        "neg_dist_threshold": 0.5,
        "sample_size": 0,
        "mining_type": Attr("max_negative", choices=("max_negative", "hard_example")),
    },
    infer=_infer_mine,
    lod="drop",
    structured=Structured(meta=metas.mine_hard_examples_meta, cpu=cpu_match.mine_hard_examples_out),
    needs_lod=True,
    run_infer=True,
    doc="Per image, the highest-loss eligible priors as negatives (max_negative: unmatched with MatchDist "
    "below neg_dist_threshold, at most neg_pos_ratio per positive; hard_example: any, at most "
    "sample_size, unselected positives unmatched): NegIndices [Neg, 1] with a LoD over the images.",
)
