"""Losses and the softmax family."""
from .registry import Attr, fmt_shape, grads_like, register


def _check_label(ctx, logits, label, soft):
    if soft:
        if list(label) != list(logits):
            ctx.fail(f"soft_label needs Label shaped like Logits {fmt_shape(logits)}, got {fmt_shape(label)}")
    elif len(label) != len(logits) or label[-1] != 1 or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(label[:-1], logits[:-1])):
        ctx.fail(f"Label must be {fmt_shape(list(logits[:-1]) + [1])} (int64 class ids) for "
                 f"Logits {fmt_shape(logits)}, got {fmt_shape(label)}")


def _infer_swce(ctx):
    logits, label = ctx.shape("Logits"), ctx.shape("Label")
    _check_label(ctx, logits, label, ctx.attrs["soft_label"])
    ctx.set_output("Softmax", logits, ctx.dtype("Logits"))
    ctx.set_output("Loss", list(logits[:-1]) + [1], ctx.dtype("Logits"))


def _grad_swce(g):
    g.op("softmax_with_cross_entropy_grad",
         {"Label": g.input("Label"), "Softmax": g.output("Softmax"), "Loss@GRAD": g.out_grad("Loss")},
         {"Logits@GRAD": g.in_grad("Logits")}, g.attrs)


_SWCE_ATTRS = {"soft_label": False, "ignore_index": -100, "numeric_stable_mode": True, "axis": -1}
register("softmax_with_cross_entropy", inputs=["Logits", "Label"], outputs=["Softmax", "Loss"],
         attrs=_SWCE_ATTRS, infer=_infer_swce, grad=_grad_swce,
         doc="Loss = -log(softmax(Logits)[Label]) per row; Softmax is kept for the gradient.")
register("softmax_with_cross_entropy_grad", inputs=["Label", "Softmax", "Loss@GRAD"],
         outputs=["Logits@GRAD"], attrs=_SWCE_ATTRS, infer=grads_like({"Logits@GRAD": "Softmax"}))
