"""Ranking losses (kernels in kernels/<device>/loss_ranking.py; the CPU's structured out-kernels there, their
meta rules in shapes/loss_pairwise.py): margin_rank_loss, rank_loss and bpr_loss."""

from .loss_classification import _grad_of, infer_pairwise
from ..kernels.cpu import loss_ranking as cpu_loss
from ..shapes import loss_pairwise as meta_rules
from .define import Structured, fmt_shape, grads_like, register


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------

_MRL_ATTRS = {"margin": 0.0}
register(
    "margin_rank_loss",
    kernel_module="loss_ranking",
    inputs=["X1", "X2", "Label"],
    outputs=["Out", "Activated"],
    attrs=_MRL_ATTRS,
    infer=infer_pairwise(("X1", "X2", "Label"), ("Out", "Activated")),
    grad=_grad_of("margin_rank_loss_grad", ("Label",), ("Activated",), in_grads=("X1", "X2")),
    grad_reads=("Activated", "Label"),
    lod="drop",
    doc="Out = max(0, -Label * (X1 - X2) + margin), Label in {1, -1}; Activated = 1 where Out > 0. "
    "No gradient flows to Label.",
    structured=Structured(meta=meta_rules.margin_rank_meta, cpu=cpu_loss.MARGIN_RANK),
)
register(
    "margin_rank_loss_grad",
    kernel_module="loss_ranking",
    inputs=["Label", "Activated", "Out@GRAD"],
    outputs=["X1@GRAD?", "X2@GRAD?"],
    attrs=_MRL_ATTRS,
    infer=grads_like({"X1@GRAD": "Label", "X2@GRAD": "Label"}),
    structured=Structured(meta=meta_rules.margin_rank_grad_meta, cpu=cpu_loss.MARGIN_RANK_GRAD),
)


def _infer_rank_loss(ctx):
    """Label, Left and Right each [N] or [N, 1] (Fluid's rank_loss takes either); Out has Label's shape."""
    shapes = {s: ctx.shape(s) for s in ("Label", "Left", "Right")}
    sizes = {d[0] for d in shapes.values() if d and d[0] >= 0}
    if any(len(d) not in (1, 2) or tuple(d[1:]) not in ((), (1,), (-1,)) for d in shapes.values()) or len(sizes) > 1:
        ctx.fail(
            "Label, Left and Right must each be [batch_size] or [batch_size, 1], of one batch size; got "
            + ", ".join(f"{s} {fmt_shape(d)}" for s, d in shapes.items())
        )
    ctx.set_output("Out", shapes["Label"], ctx.dtype("Left"))


register(
    "rank_loss",
    kernel_module="loss_ranking",
    inputs=["Label", "Left", "Right"],
    outputs=["Out"],
    infer=_infer_rank_loss,
    grad=_grad_of("rank_loss_grad", ("Label", "Left", "Right"), in_grads=("Left", "Right")),
    grad_reads=("Label", "Left", "Right"),
    lod="drop",
    doc="Out = log(1 + exp(Left - Right)) - Label * (Left - Right) (RankNet; Label a probability). "
    "No gradient flows to Label.",
    structured=Structured(meta=meta_rules.rank_meta, cpu=cpu_loss.RANK),
)
register(
    "rank_loss_grad",
    kernel_module="loss_ranking",
    inputs=["Label", "Left", "Right", "Out@GRAD"],
    outputs=["Left@GRAD?", "Right@GRAD?"],
    infer=grads_like({"Left@GRAD": "Left", "Right@GRAD": "Right"}),
    structured=Structured(meta=meta_rules.rank_grad_meta, cpu=cpu_loss.RANK_GRAD),
)


# -- bpr_loss ---------------------------------------------------------------------------------------


def _infer_bpr(ctx):
    x, label = ctx.shape("X"), ctx.shape("Label")
    if (
        len(x) < 2
        or len(label) != len(x)
        or label[-1] not in (1, -1)
        or any(a != b and a >= 0 and b >= 0 for a, b in zip(label[:-1], x[:-1]))
    ):
        ctx.fail(
            f"Label {fmt_shape(label)} must be {fmt_shape(list(x[:-1]) + [1])} (int64 positive items) for "
            f"X {fmt_shape(x)}"
        )
    ctx.set_output("Y", list(x[:-1]) + [1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "bpr_loss",
    kernel_module="loss_ranking",
    inputs=["X", "Label"],
    outputs=["Y"],
    infer=_infer_bpr,
    run_dtypes={"Label": ("int32", "int64")},
    grad=_grad_of("bpr_loss_grad", ("X", "Label"), out_grads=("Y",)),
    grad_reads=("Label", "X"),
    doc="Y = mean over the items j other than the row's positive item p = Label of "
    "log(1 + exp(X[j] - X[p])) (Bayesian personalized ranking; X holds scores per item).",
    structured=Structured(meta=meta_rules.bpr_meta, cpu=cpu_loss.BPR),
)
register(
    "bpr_loss_grad",
    kernel_module="loss_ranking",
    inputs=["X", "Label", "Y@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.bpr_grad_meta, cpu=cpu_loss.BPR_GRAD),
)
