"""Two-class losses of the classification family: teacher_student_sigmoid_loss, log_loss, Fluid 1.8's
bce_loss (binary cross-entropy of probabilities), hinge_loss and modified_huber_loss (margin losses of
two-class scores). Their kernels are the family's: structured on the CPU (meta rules in
pe_cli/shapes/loss_classification.py, out-kernels in pe_cli/kernels/cpu/loss_classification.py), CUDA's by name."""

from ..kernels.cpu import loss_classification as cpu_loss
from ..shapes import loss_classification as meta_rules
from .define import Attr, Structured, fmt_shape, grad_of as _grad_of, grads_like, register
from .loss_classification import infer_pairwise, same_shape


def _all_known_same(ctx, a, b):
    """Fluid's check of two inputs' shapes: equal where every dim is known (or the op runs)."""
    x, y = ctx.shape(a), ctx.shape(b)
    if (ctx.is_runtime or min(list(x) + list(y) + [0]) >= 0) and list(x) != list(y):
        ctx.fail(f"{b} {fmt_shape(y)} must have the shape of {a} {fmt_shape(x)}")


def _infer_teacher_student(ctx):
    x, label = ctx.shape("X"), ctx.shape("Label")
    if len(x) != 2 or len(label) != 2:
        ctx.fail(f"X {fmt_shape(x)} and Label {fmt_shape(label)} must be 2-D")
    if ctx.is_runtime and (x[0] != label[0] or label[1] != 1 or x[1] != 1):  # (Fluid: when it runs)
        ctx.fail(f"X {fmt_shape(x)} and Label {fmt_shape(label)} must be [batch_size, 1]")
    ctx.set_output("Y", [x[0], 1], ctx.dtype("X"))


def _infer_modified_huber(ctx):
    x = ctx.shape("X")
    if len(x) != 2 or (ctx.is_runtime and x[1] != 1):  # (its width when it runs, as Fluid's)
        ctx.fail(f"X {fmt_shape(x)} must be [batch_size, 1]")
    _all_known_same(ctx, "X", "Y")
    ctx.set_output("IntermediateVal", x, ctx.dtype("X"))
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"))


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------

_TS_ATTRS = {"soft_max_up_bound": 15.0, "soft_max_lower_bound": -15.0}
register(
    "teacher_student_sigmoid_loss",
    kernel_module="loss_classification",
    inputs=["X", "Label"],
    outputs=["Y"],
    attrs=_TS_ATTRS,
    infer=_infer_teacher_student,
    run_infer=True,
    grad=_grad_of("teacher_student_sigmoid_loss_grad", ("X", "Label"), out_grads=("Y",)),
    grad_reads=("Label", "X"),
    lod="drop",
    doc="Y = the sigmoid cross-entropy of logit X with the click z and, when given, a teacher's value q, "
    "coded in Label: -2 (z = 0, no q), -1 (z = 1, no q), q (z = 0) or 1 + q (z = 1): "
    "softplus(X) - z X, plus softplus(X) - q X when q is given. The gradient, as Fluid's, is 0 where "
    "X lies outside (soft_max_lower_bound, soft_max_up_bound).",
    structured=Structured(meta=meta_rules.teacher_student_meta, cpu=cpu_loss.TEACHER_STUDENT),
)
register(
    "teacher_student_sigmoid_loss_grad",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs=_TS_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.teacher_student_grad_meta, cpu=cpu_loss.TEACHER_STUDENT_GRAD),
)


# -- log_loss -------------------------------------------------------------------------------------------


def _infer_log_loss(ctx):
    _all_known_same(ctx, "Predicted", "Labels")
    p = ctx.shape("Predicted")
    if len(p) != 2 or (ctx.is_runtime and p[1] != 1):  # (its width when it runs, as Fluid's)
        ctx.fail(f"Predicted {fmt_shape(p)} must be [batch_size, 1] (one probability per row)")
    ctx.set_output("Loss", [p[0], 1], ctx.dtype("Predicted"))


_LOG_ATTRS = {"epsilon": Attr(1e-4, lambda v: v >= 0, ">= 0")}
register(
    "log_loss",
    kernel_module="loss_classification",
    inputs=["Predicted", "Labels"],
    outputs=["Loss"],
    run_infer=True,
    attrs=_LOG_ATTRS,
    infer=_infer_log_loss,
    lod="drop",
    grad=_grad_of("log_loss_grad", ("Predicted", "Labels"), out_grads=("Loss",), in_grads=("Predicted",)),
    grad_reads=("Labels", "Predicted"),
    doc="Loss = -Labels log(Predicted + epsilon) - (1 - Labels) log(1 - Predicted + epsilon), per row "
    "(Fluid's log_loss: Predicted holds probabilities). No gradient flows to Labels.",
    structured=Structured(meta=meta_rules.log_loss_meta, cpu=cpu_loss.LOG_LOSS),
)
register(
    "log_loss_grad",
    kernel_module="loss_classification",
    inputs=["Predicted", "Labels", "Loss@GRAD"],
    outputs=["Predicted@GRAD"],
    attrs=_LOG_ATTRS,
    infer=grads_like({"Predicted@GRAD": "Predicted"}),
    structured=Structured(meta=meta_rules.log_loss_grad_meta, cpu=cpu_loss.LOG_LOSS_GRAD),
)


# -- bce_loss, hinge_loss, modified_huber_loss ----------------------------------------------------------


def _infer_bce(ctx):
    same_shape(ctx, "X", "Label")
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"))


register(
    "bce_loss",
    kernel_module="loss_classification",
    inputs=["X", "Label"],
    outputs=["Out"],
    infer=_infer_bce,
    grad=_grad_of("bce_loss_grad", ("X", "Label")),
    grad_reads=("X", "Label"),
    doc="Out = -(Label * log(X) + (1 - Label) * log(1 - X)) elementwise, each log at least -100; X holds "
    "probabilities in [0, 1] (the CPU kernel refuses others, as Fluid's).",
    structured=Structured(meta=meta_rules.bce_meta, cpu=cpu_loss.BCE),
)
register(
    "bce_loss_grad",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.bce_grad_meta, cpu=cpu_loss.BCE_GRAD),
)


register(
    "hinge_loss",
    kernel_module="loss_classification",
    inputs=["Logits", "Labels"],
    outputs=["Loss"],
    infer=infer_pairwise(("Logits", "Labels"), ("Loss",)),
    grad=_grad_of("hinge_loss_grad", ("Logits", "Labels"), out_grads=("Loss",), in_grads=("Logits",)),
    grad_reads=("Logits", "Labels"),
    doc="Loss = max(0, 1 - Logits * (2 * Labels - 1)) for [N, 1] scores and 0/1 labels.",
    structured=Structured(meta=meta_rules.hinge_meta, cpu=cpu_loss.HINGE),
)
register(
    "hinge_loss_grad",
    kernel_module="loss_classification",
    inputs=["Logits", "Labels", "Loss@GRAD"],
    outputs=["Logits@GRAD"],
    infer=grads_like({"Logits@GRAD": "Logits"}),
    structured=Structured(meta=meta_rules.hinge_grad_meta, cpu=cpu_loss.HINGE_GRAD),
)

register(
    "modified_huber_loss",
    kernel_module="loss_classification",
    inputs=["X", "Y"],
    outputs=["IntermediateVal", "Out"],
    infer=_infer_modified_huber,
    run_infer=True,
    grad=_grad_of("modified_huber_loss_grad", ("Y",), ("IntermediateVal",)),
    grad_reads=("Y", "IntermediateVal"),
    doc="IntermediateVal = X * (2 * Y - 1) = v; Out = -4 v where v < -1, (1 - v)^2 where v < 1, else 0; "
    "[N, 1] scores and 0/1 labels (Fluid checks neither's values).",
    structured=Structured(meta=meta_rules.modified_huber_meta, cpu=cpu_loss.MODIFIED_HUBER),
)
register(
    "modified_huber_loss_grad",
    kernel_module="loss_classification",
    inputs=["Y", "IntermediateVal", "Out@GRAD"],
    outputs=["X@GRAD"],
    infer=grads_like({"X@GRAD": "Y"}),
    structured=Structured(meta=meta_rules.modified_huber_grad_meta, cpu=cpu_loss.MODIFIED_HUBER_GRAD),
)
