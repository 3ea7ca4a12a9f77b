"""sigmoid_focal_loss of Fluid 1.8 (RetinaNet's loss; kernels in
kernels/<device>/detection_loss.py), with its gradient wrt X as in Fluid. ssd_loss is a layer composed
of other ops (layers/detection_loss.py)."""

from ..kernels.cpu import detection_loss as cpu_loss
from ..shapes import detection_targets as metas
from ..shapes.structured import Structured
from .define import fmt_shape, register


def _infer_focal(ctx):
    x, label, fg = ctx.shape("X"), ctx.shape("Label"), ctx.shape("FgNum")
    if len(x) != 2:
        ctx.fail(f"X {fmt_shape(x)} must be [N, C] logits")
    if len(label) != 2 or label[1] not in (1, -1) or (label[0] >= 0 and x[0] >= 0 and label[0] != x[0]):
        ctx.fail(f"Label {fmt_shape(label)} must be [N, 1] for X {fmt_shape(x)}")
    if [d for d in fg if d not in (1, -1)]:
        ctx.fail(f"FgNum {fmt_shape(fg)} must hold one number")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_focal(g):
    g.op(
        "sigmoid_focal_loss_grad",
        {"X": g.input("X"), "Label": g.input("Label"), "FgNum": g.input("FgNum"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        {"gamma": g.attrs["gamma"], "alpha": g.attrs["alpha"]},
    )


register(
    "sigmoid_focal_loss",
    kernel_module="detection_loss",
    inputs=["X", "Label", "FgNum"],
    outputs=["Out"],
    run_dtypes={"Label": ("int32",), "FgNum": ("int32",)},
    attrs={"gamma": 2.0, "alpha": 0.25},
    infer=_infer_focal,
    grad=_grad_focal,
    grad_reads=("X", "Label", "FgNum"),
    lod="drop",
    structured=Structured(meta=metas.focal_meta, cpu=cpu_loss.sigmoid_focal_loss_out),
    doc="Out[i, d] = the focal loss of class d + 1 for sample i (Label 0: background, -1: ignored), "
    "alpha / FgNum on the positive term and (1 - alpha) / FgNum on the negative ones.",
)
register(
    "sigmoid_focal_loss_grad",
    kernel_module="detection_loss",
    inputs=["X", "Label", "FgNum", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"gamma": 2.0, "alpha": 0.25},
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
    structured=Structured(meta=metas.focal_grad_meta, cpu=cpu_loss.sigmoid_focal_loss_grad_out),
)
