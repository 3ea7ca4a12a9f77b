"""The combined-margin softmax loss of face recognition (Paddle 2.x's margin_cross_entropy: ArcFace,
CosFace and SphereFace margins in one formula) and the class-center sampling PartialFC trains it with
(class_center_sample), with Paddle 2.6.2's op types, slots and attributes, computed as one process
(nranks 1) computes them. Paddle 2.6.2 has margin_cross_entropy's kernels on GPUs only (its CPU build
refuses the op); pe's follow its CUDA kernels' formula on every place."""

from ..base.dims import fmt_shape
from ..kernels.cpu import loss_margin as cpu_margin
from ..shapes import loss_margin as metas
from ..shapes.structured import Structured
from .define import Attr, is_int, register

_BOOL = (False, True)
_RING = {
    "ring_id": Attr(0, is_int, "an int"),
    "rank": Attr(0, lambda v: v == 0, "0 (one process)"),
    "nranks": Attr(1, lambda v: v == 1, "1 (pe runs margin_cross_entropy and class_center_sample in one process)"),
}


def _infer_margin(ctx):
    logits, label = ctx.shape("Logits"), ctx.shape("Label")
    if ctx.dtype("Logits") not in ("float16", "float32", "float64"):
        ctx.fail(f"Logits is {ctx.dtype('Logits')}; it must be a float tensor of cosines")
    if ctx.dtype("Label") not in ("int32", "int64"):
        ctx.fail(f"Label is {ctx.dtype('Label')}; it must be int32 or int64")
    if len(logits) != 2 or len(label) != 2 or label[1] != 1:
        ctx.fail(f"Logits {fmt_shape(logits)} must be [N, D] and Label {fmt_shape(label)} [N, 1]")
    ctx.set_output("Softmax", logits, ctx.dtype("Logits"))
    ctx.set_output("Loss", [logits[0], 1], ctx.dtype("Logits"))


def _grad_margin(g):
    g.op(
        "margin_cross_entropy_grad",
        {
            "Logits": g.input("Logits"),
            "Label": g.input("Label"),
            "Softmax": g.output("Softmax"),
            "Loss@GRAD": g.out_grad("Loss"),
        },
        {"Logits@GRAD": g.in_grad("Logits")},
        g.attrs,
    )


_MARGIN_ATTRS = dict(
    _RING, return_softmax=Attr(False, choices=_BOOL), margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0
)
register(
    "margin_cross_entropy",
    kernel_module="loss_margin",
    inputs=["Logits", "Label"],
    outputs=["Softmax", "Loss"],
    attrs=_MARGIN_ATTRS,
    infer=_infer_margin,
    grad=_grad_margin,
    grad_reads=("Logits", "Label", "Softmax"),
    lod="drop",
    structured=Structured(meta=metas.margin_meta, cpu=cpu_margin.margin_cross_entropy_out),
    doc="Loss = -log softmax(scale * z)[label] per row, where z is Logits (cosines) with the label's "
    "cos(theta) replaced by cos(margin1 * theta + margin2) - margin3 (theta = acos of it); Softmax is "
    "that softmax. The gradient of Logits is scale * (Softmax - onehot(label)) * Loss@GRAD, times "
    "margin1 sin(margin1 theta + margin2) / sin(theta) at the label when a margin bends it.",
)
register(
    "margin_cross_entropy_grad",
    kernel_module="loss_margin",
    inputs=["Logits", "Label", "Softmax", "Loss@GRAD"],
    outputs=["Logits@GRAD"],
    attrs=_MARGIN_ATTRS,
    infer=lambda ctx: ctx.set_output("Logits@GRAD", ctx.shape("Logits"), ctx.dtype("Logits")),
    structured=Structured(meta=metas.margin_grad_meta, cpu=cpu_margin.margin_cross_entropy_grad_out),
)


def _infer_sample(ctx):
    a = ctx.attrs
    if ctx.dtype("Label") not in ("int32", "int64") or len(ctx.shape("Label")) != 1:
        ctx.fail(f"Label {fmt_shape(ctx.shape('Label'))} ({ctx.dtype('Label')}) must be 1-D int32 or int64")
    if not 0 < a["num_samples"] <= a["num_classes"]:
        ctx.fail(f"num_samples={a['num_samples']} must be in [1, num_classes={a['num_classes']}]")
    ctx.set_output("RemappedLabel", ctx.shape("Label"), ctx.dtype("Label"))
    ctx.set_output("SampledLocalClassCenter", [-1], ctx.dtype("Label"))


register(
    "class_center_sample",
    kernel_module="loss_margin",
    inputs=["Label"],
    outputs=["RemappedLabel", "SampledLocalClassCenter"],
    attrs=dict(
        _RING,
        num_classes=Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
        num_samples=Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
        fix_seed=Attr(False, choices=_BOOL),
        seed=Attr(0, is_int, "an int"),
    ),
    infer=_infer_sample,
    needs_rng=True,
    lod="drop",
    structured=Structured(meta=metas.class_center_sample_meta, cpu=cpu_margin.class_center_sample_out),
    doc="SampledLocalClassCenter = the classes in Label (ascending), then classes drawn at random from the "
    "others until num_samples are there (none when the labels' classes are already as many); "
    "RemappedLabel = each label's place among them. With fix_seed the draws follow `seed` (Paddle's "
    "Python sets it from the program's random_seed). No gradient.",
)
