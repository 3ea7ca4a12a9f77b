"""rank_attention (Fluid 1.8's contrib op, GPU-only there): each instance i of X [N, C] has a rank
(RankOffset[i, 0], 1-based; 0: none) and up to max_rank (rank, row) pairs (RankOffset[i, 1 + 2k],
RankOffset[i, 2 + 2k]); for each valid pair k, the row X[row] meets the [C, P] block (lower *
max_rank + faster) of RankParam [C * max_rank^2, P], lower / faster the two ranks - 1:
Out[i] = sum_k X[row_k] @ block. InputHelp keeps the gathered rows [N, max_rank * C], InsRank the
ranks. As in Fluid, the gradient reaches RankParam only (kernels in kernels/<device>/rank_attention.py)."""

from ..kernels.cpu import rank_attention as cpu_rank_attention
from ..shapes import rank_attention as rules
from .define import Attr, Structured, fmt_shape, register


def _infer(ctx):
    x, offset, param = ctx.shape("X"), ctx.shape("RankOffset"), ctx.shape("RankParam")
    rank = ctx.attrs["MaxRank"]
    if len(x) != 2 or len(param) != 2 or len(offset) != 2:
        ctx.fail(f"X {fmt_shape(x)}, RankOffset {fmt_shape(offset)} and RankParam {fmt_shape(param)} must be 2-D")
    if offset[1] >= 0 and offset[1] != 1 + 2 * rank:
        ctx.fail(f"RankOffset {fmt_shape(offset)} must have 1 + 2 * MaxRank = {1 + 2 * rank} columns")
    if x[1] >= 0 and param[0] >= 0 and param[0] != x[1] * rank * rank:
        ctx.fail(f"RankParam {fmt_shape(param)} must have X's width * MaxRank^2 = {x[1] * rank * rank} rows")
    ctx.set_output("Out", [x[0], param[1]], ctx.dtype("X"))
    ctx.set_output("InputHelp", [x[0], -1 if x[1] < 0 else x[1] * rank], ctx.dtype("X"))
    ctx.set_output("InsRank", [x[0], 1], ctx.dtype("X"))


def _grad(g):
    g.op(
        "rank_attention_grad",
        {
            "X": g.input("X"),
            "RankOffset": g.input("RankOffset"),
            "RankParam": g.input("RankParam"),
            "Out@GRAD": g.out_grad("Out"),
        },
        {"RankParam@GRAD": g.in_grad("RankParam")},
        g.attrs,
    )


def _infer_grad(ctx):
    ctx.set_output("RankParam@GRAD", ctx.shape("RankParam"), ctx.dtype("RankParam"))


register(
    "rank_attention",
    kernel_module="rank_attention",
    structured=Structured(meta=rules.rank_attention_meta, cpu=cpu_rank_attention.RANK_ATTENTION),
    inputs=["X", "RankOffset", "RankParam"],
    outputs=["Out", "InputHelp", "InsRank"],
    attrs={"MaxRank": Attr(3, lambda v: v > 0, "> 0")},
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "RankOffset", "RankParam"),
    lod="drop",
    doc="Out[i] = sum over valid pairs k of X[row_k] @ RankParam's block (rank_i - 1) * MaxRank + rank_k - 1.",
)
register(
    "rank_attention_grad",
    kernel_module="rank_attention",
    structured=Structured(meta=rules.rank_attention_grad_meta, cpu=cpu_rank_attention.RANK_ATTENTION_GRAD),
    inputs=["X", "RankOffset", "RankParam", "Out@GRAD"],
    outputs=["RankParam@GRAD"],
    attrs={"MaxRank": Attr(3, lambda v: v > 0, "> 0")},
    infer=_infer_grad,
)
