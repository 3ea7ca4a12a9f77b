"""Regression losses (kernels in kernels/<device>/loss_regression.py; the CPU's structured out-kernels there,
their meta rules in shapes/loss_pairwise.py): huber_loss, smooth_l1_loss and center_loss."""

from .loss_classification import _grad_of, infer_same_shapes, same_shape
from ..kernels.cpu import loss_regression as cpu_loss
from ..shapes import loss_pairwise as meta_rules
from .define import Attr, Structured, fmt_shape, grads_like, is_int, register


# -- huber_loss -------------------------------------------------------------------------------------


def _grad_huber(g):
    g.op(
        "huber_loss_grad",
        {"Residual": g.output("Residual"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")},
        g.attrs,
    )


def _infer_huber_grad(ctx):
    r = ctx.input_var("Residual")
    ctx.set_output("X@GRAD", r.shape, r.dtype)
    ctx.set_output("Y@GRAD", r.shape, r.dtype)


_HUBER_ATTRS = {"delta": Attr(1.0, lambda v: v > 0, "> 0")}
register(
    "huber_loss",
    kernel_module="loss_regression",
    grad_reads=("Residual",),
    inputs=["X", "Y"],
    outputs=["Out", "Residual"],
    attrs=_HUBER_ATTRS,
    infer=infer_same_shapes("X", "Y", ["Out", "Residual"]),
    grad=_grad_huber,
    doc="Residual = Y - X; Out = 0.5 * r^2 where |r| <= delta, else delta * (|r| - 0.5 * delta).",
    structured=Structured(meta=meta_rules.huber_meta, cpu=cpu_loss.HUBER),
)
register(
    "huber_loss_grad",
    kernel_module="loss_regression",
    inputs=["Residual", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_HUBER_ATTRS,
    infer=_infer_huber_grad,
    structured=Structured(meta=meta_rules.huber_grad_meta, cpu=cpu_loss.HUBER_GRAD),
)


# -- smooth_l1_loss --------------------------------------------------------------------------------


def _infer_smooth_l1(ctx):
    same_shape(ctx, "X", "Y")
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must have at least 2 dims (samples first)")
    weights = [ctx.has_input(s) for s in ("InsideWeight", "OutsideWeight")]
    if any(weights) and not all(weights):
        ctx.fail("give both InsideWeight and OutsideWeight, or neither")
    for slot in ("InsideWeight", "OutsideWeight"):
        if ctx.has_input(slot):
            same_shape(ctx, "X", slot)
    ctx.set_output("Diff", x, ctx.dtype("X"))
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"))


_SL1_ATTRS = {"sigma": Attr(1.0, lambda v: v > 0, "> 0")}
register(
    "smooth_l1_loss",
    kernel_module="loss_regression",
    inputs=["X", "Y", "InsideWeight?", "OutsideWeight?"],
    outputs=["Diff", "Out"],
    attrs=_SL1_ATTRS,
    infer=_infer_smooth_l1,
    grad=_grad_of("smooth_l1_loss_grad", ("InsideWeight", "OutsideWeight"), ("Diff",), in_grads=("X", "Y")),
    grad_reads=("Diff", "InsideWeight", "OutsideWeight"),
    lod="drop",
    doc="Diff = (X - Y) * InsideWeight; Out[i] = sum over sample i of OutsideWeight * "
    "(0.5 * sigma^2 * Diff^2 where |Diff| < 1 / sigma^2, else |Diff| - 0.5 / sigma^2), shape [N, 1]. "
    "The weights count only when both are given.",
    structured=Structured(meta=meta_rules.smooth_l1_meta, cpu=cpu_loss.SMOOTH_L1),
)
register(
    "smooth_l1_loss_grad",
    kernel_module="loss_regression",
    inputs=["InsideWeight?", "OutsideWeight?", "Diff", "Out@GRAD"],
    outputs=["X@GRAD?", "Y@GRAD?"],
    attrs=_SL1_ATTRS,
    infer=grads_like({"X@GRAD": "Diff", "Y@GRAD": "Diff"}),
    structured=Structured(meta=meta_rules.smooth_l1_grad_meta, cpu=cpu_loss.SMOOTH_L1_GRAD),
)


# -- center_loss ----------------------------------------------------------------------------------------


def _infer_center_loss(ctx):
    x, label, centers = ctx.shape("X"), ctx.shape("Label"), ctx.shape("Centers")
    if len(x) != 2 or len(centers) != 2 or (x[1] >= 0 and centers[1] >= 0 and x[1] != centers[1]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, D] and Centers {fmt_shape(centers)} [cluster_num, D]")
    if len(label) not in (1, 2):
        ctx.fail(f"Label must be int64 [N, 1] class ids, got {fmt_shape(label)}")
    ctx.set_output("SampleCenterDiff", x, ctx.dtype("X"))
    ctx.set_output("Loss", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("CentersOut", centers, ctx.dtype("Centers"))


_CL_ATTRS = {"cluster_num": Attr(None, lambda v: is_int(v) and v > 0, "an int > 0"), "need_update": False}
register(
    "center_loss",
    kernel_module="loss_regression",
    inputs=["X", "Label", "Centers", "CenterUpdateRate"],
    outputs=["SampleCenterDiff", "Loss", "CentersOut"],
    attrs=_CL_ATTRS,
    infer=_infer_center_loss,
    run_dtypes={"Label": ("int32", "int64")},
    grad=_grad_of("center_loss_grad", ("X",), ("SampleCenterDiff",), out_grads=("Loss",)),
    grad_reads=("SampleCenterDiff", "X"),
    lod="drop",
    doc="SampleCenterDiff = X - Centers[Label]; Loss = half its squared norm per row. With need_update, "
    "CentersOut[j] = Centers[j] + alpha * (sum of the diffs of class j) / (1 + their count), alpha = "
    "CenterUpdateRate. The gradient flows to X only.",
    structured=Structured(meta=meta_rules.center_meta, cpu=cpu_loss.CENTER),
)
register(
    "center_loss_grad",
    kernel_module="loss_regression",
    inputs=["X?", "SampleCenterDiff", "Loss@GRAD"],
    outputs=["X@GRAD"],
    attrs=_CL_ATTRS,
    infer=grads_like({"X@GRAD": "SampleCenterDiff"}),
    no_need_buffer=("X",),
    structured=Structured(meta=meta_rules.center_grad_meta, cpu=cpu_loss.CENTER_GRAD),
)
