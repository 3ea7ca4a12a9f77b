"""Classification losses (kernels in kernels/<device>/loss_classification.py; the CPU's structured out-kernels
there and in loss_softmax_ce.py and loss_cross_entropy.py, their meta rules in shapes/loss_classification.py):
softmax_with_cross_entropy, cross_entropy and cross_entropy2 (X holding probabilities),
sigmoid_cross_entropy_with_logits, teacher_student_sigmoid_loss, kldiv_loss, label_smooth, log_loss; Fluid 1.8's bce_loss (binary cross-entropy
of probabilities), nll_loss (the negative log-likelihood of log-probabilities), hinge_loss and modified_huber_loss
(margin losses of two-class scores); the two-class ones are registered in loss_classification_binary.py. The shape
checks and grad makers here serve the other loss families too."""

from ..base.activations import real_number
from ..kernels.cpu import loss_classification as cpu_loss, loss_cross_entropy as cpu_ce, loss_softmax_ce as cpu_sce
from ..shapes import loss_classification as meta_rules
from .define import Attr, Structured, fmt_shape, grad_of as _grad_of, grads_like, register


def _check_label(ctx, logits, label, soft, name="Logits"):
    if soft:
        if len(label) != len(logits) or any(a != b and a >= 0 and b >= 0 for a, b in zip(label, logits)):
            ctx.fail(f"soft_label needs Label shaped like {name} {fmt_shape(logits)}, got {fmt_shape(label)}")
    elif (
        len(label) != len(logits)
        or label[-1] not in (1, -1)
        or any(a != b and a >= 0 and b >= 0 for a, b in zip(label[:-1], logits[:-1]))
    ):
        ctx.fail(
            f"Label must be {fmt_shape(list(logits[:-1]) + [1])} (int64 class ids) for "
            f"{name} {fmt_shape(logits)}, got {fmt_shape(label)}"
        )


def hard_labels(attrs, ctx=None):
    """The dtypes a hard Label holds, checked when the op runs (``run_dtypes``, told the kernel's context):
    int64 class ids, or any int as Paddle 2.6's kernels take (int32, int16, int8, uint8); a soft one any."""
    return None if attrs.get("soft_label") else ("int64", "int32", "int16", "int8", "uint8")


def _infer_swce(ctx):
    """The class dim is ``axis`` (-1: the last): Label and Loss have a 1 there for hard labels."""
    logits, label = list(ctx.shape("Logits")), list(ctx.shape("Label"))
    axis = ctx.attrs["axis"] % len(logits) if logits else 0
    if not -len(logits) <= ctx.attrs["axis"] < max(len(logits), 1):
        ctx.fail(f"axis={ctx.attrs['axis']} is not a dim of Logits {fmt_shape(logits)}")
    if len(label) == len(logits) and axis != len(logits) - 1:

        def last(s):
            return s[:axis] + s[axis + 1 :] + [s[axis]]

        _check_label(ctx, last(logits), last(label), ctx.attrs["soft_label"])
    else:
        _check_label(ctx, logits, label, ctx.attrs["soft_label"])
    ctx.set_output("Softmax", logits, ctx.dtype("Logits"))
    ctx.set_output("Loss", logits[:axis] + [1] + logits[axis + 1 :], ctx.dtype("Logits"))


def _grad_swce(g):
    g.op(
        "softmax_with_cross_entropy_grad",
        {"Label": g.input("Label"), "Softmax": g.output("Softmax"), "Loss@GRAD": g.out_grad("Loss")},
        {"Logits@GRAD": g.in_grad("Logits")},
        g.attrs,
    )


_SWCE_ATTRS = {
    "soft_label": False,
    "ignore_index": -100,
    "numeric_stable_mode": True,
    "axis": -1,
    # Paddle 2.x's: False takes Logits as probabilities (Softmax a copy of them; F.cross_entropy's use_softmax)
    "use_softmax": True,
}
register(
    "softmax_with_cross_entropy",
    kernel_module="loss_classification",
    run_dtypes={"Label": hard_labels},
    grad_reads=("Label", "Softmax"),
    inputs=["Logits", "Label"],
    outputs=["Softmax", "Loss"],
    attrs=_SWCE_ATTRS,
    infer=_infer_swce,
    grad=_grad_swce,
    last_axis=("Logits", "Label", "Softmax", "Loss"),
    structured=Structured(meta=meta_rules.softmax_ce_meta, cpu=cpu_sce.FORWARD),
    doc="Loss = -log(softmax(Logits)[Label]) along the dim `axis` (-1: the last); Softmax is kept for the gradient. "
    "Paddle 2.x's use_softmax=False: Logits are probabilities, Softmax a copy of them, Loss = -log(Logits[Label]) "
    "(log(0) taken as -1e20, as Paddle's TolerableValue).",
)
register(
    "softmax_with_cross_entropy_grad",
    kernel_module="loss_classification",
    inputs=["Label", "Softmax", "Loss@GRAD"],
    outputs=["Logits@GRAD"],
    attrs=_SWCE_ATTRS,
    infer=grads_like({"Logits@GRAD": "Softmax"}),
    last_axis=("Label", "Softmax", "Loss@GRAD", "Logits@GRAD"),
    structured=Structured(meta=meta_rules.softmax_ce_grad_meta, cpu=cpu_sce.GRAD),
)


# -- cross_entropy (X holds probabilities) ---------------------------------------------------------


def _infer_cross_entropy(ctx):
    x, label = ctx.shape("X"), ctx.shape("Label")
    if not ctx.attrs["soft_label"] and len(label) == len(x) - 1:  # hard ids without the trailing 1 (Fluid's)
        _check_label(ctx, x, list(label) + [1], False, name="X")
        ctx.set_output("Y", label, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
        return
    _check_label(ctx, x, label, ctx.attrs["soft_label"], name="X")
    ctx.set_output("Y", list(x[:-1]) + [1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_cross_entropy(g):
    g.op(
        "cross_entropy_grad",
        {"X": g.input("X"), "Label": g.input("Label"), "Y@GRAD": g.out_grad("Y")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_CE_ATTRS = {"soft_label": False, "ignore_index": -100}
register(
    "cross_entropy",
    kernel_module="loss_classification",
    grad_reads=("Label", "X"),
    run_dtypes={"Label": hard_labels},
    inputs=["X", "Label"],
    outputs=["Y"],
    attrs=_CE_ATTRS,
    infer=_infer_cross_entropy,
    grad=_grad_cross_entropy,
    structured=Structured(meta=meta_rules.cross_entropy_meta, cpu=cpu_ce.CROSS_ENTROPY),
    doc="Y = -log(X[Label]) per row (X holds probabilities, Label int64 [.., 1]; rows with "
    "ignore_index give 0), or -sum(Label * log(X)) with soft_label.",
)
register(
    "cross_entropy_grad",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs=_CE_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.cross_entropy_grad_meta, cpu=cpu_ce.CROSS_ENTROPY_GRAD),
)


# cross_entropy2: Fluid 1.x's op for hard labels (what layers.cross_entropy builds unless soft_label),
# with Fluid's extra outputs MatchX (X at each row's label, 0 where ignored) and XShape (X's shape and a
# trailing 0, no data). Its gradient is Fluid's: -Y@GRAD / MatchX at each row's label, X's shape read from
# XShape; an op without them (a program pe saved before it wrote them) reads X instead.
def _grad_cross_entropy2(g):
    if g.output("MatchX") and g.output("XShape"):
        ins = {"Label": g.input("Label"), "MatchX": g.output("MatchX"), "XShape": g.output("XShape")}
    else:
        ins = {"X": g.input("X"), "Label": g.input("Label")}
    g.op("cross_entropy_grad2", dict(ins, **{"Y@GRAD": g.out_grad("Y")}), {"X@GRAD": g.in_grad("X")}, g.attrs)


_CE2_ATTRS = {"ignore_index": -100}


def _infer_cross_entropy2(ctx):
    ctx.attrs = dict(ctx.attrs, soft_label=False)
    _infer_cross_entropy(ctx)
    x = list(ctx.shape("X"))
    ctx.set_output("MatchX", x[:-1] + [1], ctx.dtype("X"))
    ctx.set_output("XShape", x + [0], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register(
    "cross_entropy2",
    kernel_module="loss_classification",
    grad_reads=("Label", "MatchX", "XShape", "X"),
    run_dtypes={"Label": hard_labels},
    inputs=["X", "Label"],
    outputs=["Y", "XShape", "MatchX"],
    attrs=_CE2_ATTRS,
    infer=_infer_cross_entropy2,
    grad=_grad_cross_entropy2,
    structured=Structured(meta=meta_rules.cross_entropy2_meta, cpu=cpu_ce.CROSS_ENTROPY2),
    doc="Y = -log(X[Label]) per row, hard labels only (rows with ignore_index give 0).",
)


def _infer_cross_entropy_grad2(ctx):
    like = ctx.input_var("X") if ctx.has_input("X") else ctx.input_var("XShape")
    shape = like.shape if ctx.has_input("X") else (like.shape[:-1] if like.shape is not None else None)
    ctx.set_output("X@GRAD", shape, like.dtype, lod_level=like.lod_level)


register(
    "cross_entropy_grad2",
    kernel_module="loss_classification",
    inputs=["Label", "MatchX?", "XShape?", "Y@GRAD", "X?"],
    outputs=["X@GRAD"],
    attrs=_CE2_ATTRS,
    infer=_infer_cross_entropy_grad2,
    structured=Structured(meta=meta_rules.cross_entropy_grad2_meta, cpu=cpu_ce.CROSS_ENTROPY_GRAD2),
)


# -- sigmoid_cross_entropy_with_logits --------------------------------------------------------------


def infer_same_shapes(a, b, out):
    def infer(ctx):
        x, y = ctx.shape(a), ctx.shape(b)
        if len(x) != len(y) or any(p != q and p >= 0 and q >= 0 for p, q in zip(x, y)):
            ctx.fail(f"{b} {fmt_shape(y)} must have the shape of {a} {fmt_shape(x)}")
        if ctx.dtype(a) != ctx.dtype(b):
            ctx.fail(f"{b} {fmt_shape(y)} is {ctx.dtype(b)} but {a} {fmt_shape(x)} is {ctx.dtype(a)}; cast one of them")
        for slot in out:
            ctx.set_output(slot, x, ctx.dtype(a), lod_level=ctx.input_var(a).lod_level)

    return infer


def _grad_sce(g):
    g.op(
        "sigmoid_cross_entropy_with_logits_grad",
        {"X": g.input("X"), "Label": g.input("Label"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_SCE_ATTRS = {"ignore_index": -100, "normalize": False}
register(
    "sigmoid_cross_entropy_with_logits",
    kernel_module="loss_classification",
    grad_reads=("Label", "X"),
    inputs=["X", "Label"],
    outputs=["Out"],
    attrs=_SCE_ATTRS,
    infer=infer_same_shapes("X", "Label", ["Out"]),
    grad=_grad_sce,
    structured=Structured(meta=meta_rules.sigmoid_ce_meta, cpu=cpu_ce.SIGMOID_CE),
    doc="Out = max(X, 0) - X * Label + log(1 + exp(-|X|)) elementwise; 0 where Label == ignore_index; "
    "normalize divides by the number of elements whose Label is not ignore_index.",
)
register(
    "sigmoid_cross_entropy_with_logits_grad",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_SCE_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.sigmoid_ce_grad_meta, cpu=cpu_ce.SIGMOID_CE_GRAD),
)


# -- helpers of these losses and the other loss families --------------------------------------------


def same_shape(ctx, a, b):
    x, y = ctx.shape(a), ctx.shape(b)
    if len(x) != len(y) or any(p != q and p >= 0 and q >= 0 for p, q in zip(x, y)):
        ctx.fail(f"{b} {fmt_shape(y)} must have the shape of {a} {fmt_shape(x)}")
    if ctx.dtype(a) != ctx.dtype(b):
        ctx.fail(f"{b} is {ctx.dtype(b)} but {a} is {ctx.dtype(a)}; cast one of them")


def infer_pairwise(slots, outs):
    def infer(ctx):
        first = ctx.shape(slots[0])
        for s in slots[1:]:
            same_shape(ctx, slots[0], s)
        if len(first) != 2 or first[1] not in (1, -1):
            ctx.fail(f"{slots[0]} {fmt_shape(first)} must be [batch_size, 1], as every input")
        for o in outs:
            ctx.set_output(o, first, ctx.dtype(slots[0]))

    return infer


# -- label_smooth ---------------------------------------------------------------------------------


def _infer_label_smooth(ctx):
    x = ctx.shape("X")
    if ctx.has_input("PriorDist"):
        p = ctx.shape("PriorDist")
        if len(p) > 2 or (p and p[-1] >= 0 and x[-1] >= 0 and p[-1] != x[-1]) or any(d > 1 for d in p[:-1]):
            ctx.fail(f"PriorDist {fmt_shape(p)} must be [1, {x[-1]}] (one probability per class of X {fmt_shape(x)})")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


_LS_ATTRS = {"epsilon": Attr(0.0, real_number, "a number (Fluid checks no range)")}
register(
    "label_smooth",
    kernel_module="loss_classification",
    inputs=["X", "PriorDist?"],
    outputs=["Out"],
    attrs=_LS_ATTRS,
    infer=_infer_label_smooth,
    grad=_grad_of("label_smooth_grad", ()),
    doc="Out = (1 - epsilon) * X + epsilon * PriorDist (epsilon / K, K = X's last dim, without "
    "PriorDist). The gradient is (1 - epsilon) * Out@GRAD.",
    structured=Structured(meta=meta_rules.label_smooth_meta, cpu=cpu_loss.LABEL_SMOOTH),
)
register(
    "label_smooth_grad",
    kernel_module="loss_classification",
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_LS_ATTRS,
    infer=grads_like({"X@GRAD": "Out@GRAD"}),
    structured=Structured(meta=meta_rules.label_smooth_grad_meta, cpu=cpu_loss.LABEL_SMOOTH_GRAD),
)


# -- kldiv_loss ---------------------------------------------------------------------------------------


def _infer_kldiv(ctx):
    same_shape(ctx, "X", "Target")
    one = list(meta_rules.scalar_shape(ctx.op.zero_dim))  # (0-D in a Paddle 2.x program: Paddle 2.6's KLDivInferMeta)
    ctx.set_output("Loss", ctx.shape("X") if ctx.attrs["reduction"] == "none" else one, ctx.dtype("X"))


_KL_ATTRS = {"reduction": Attr("mean", choices=("none", "batchmean", "mean", "sum"))}
register(
    "kldiv_loss",
    kernel_module="loss_classification",
    inputs=["X", "Target"],
    outputs=["Loss"],
    attrs=_KL_ATTRS,
    infer=_infer_kldiv,
    traits=("result_0d_in_paddle2",),
    grad=_grad_of("kldiv_loss_grad", ("X", "Target"), out_grads=("Loss",)),
    grad_reads=("Target", "X"),
    lod="drop",
    doc="Loss = Target * (log(Target) - X) where Target > 0, else 0 (X holds log-probabilities); "
    "reduced by `reduction`: none, sum, mean (over all elements) or batchmean (sum / rows). "
    "No gradient flows to Target.",
    structured=Structured(meta=meta_rules.kldiv_meta, cpu=cpu_loss.KLDIV),
)
register(
    "kldiv_loss_grad",
    kernel_module="loss_classification",
    inputs=["X", "Target", "Loss@GRAD"],
    outputs=["X@GRAD"],
    attrs=_KL_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.kldiv_grad_meta, cpu=cpu_loss.KLDIV_GRAD),
)


# -- nll_loss ---------------------------------------------------------------------------------------------


def _infer_nll(ctx):
    x, label, reduction = ctx.shape("X"), ctx.shape("Label"), ctx.attrs["reduction"]
    if len(x) not in (2, 4) or len(label) != len(x) - 1:
        ctx.fail(
            f"X {fmt_shape(x)} must be [N, C] with Label [N], or [N, C, H, W] with Label [N, H, W]; "
            f"Label is {fmt_shape(label)}"
        )
    kept = [x[0]] + list(x[2:])
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(kept, label)):
        ctx.fail(f"Label {fmt_shape(label)} must be X {fmt_shape(x)} without its class dim")
    w = ctx.shape("Weight") if ctx.has_input("Weight") else None
    if w is not None and (len(w) != 1 or (x[1] >= 0 and w[0] >= 0 and x[1] != w[0])):
        ctx.fail(f"Weight {fmt_shape(ctx.shape('Weight'))} must be 1-D, one weight per class of X {fmt_shape(x)}")
    one = list(meta_rules.scalar_shape(ctx.op.zero_dim))  # (0-D in Paddle 2.x: its NllLossRawInferMeta)
    ctx.set_output("Out", kept if reduction == "none" else one, ctx.dtype("X"))
    ctx.set_output("Total_weight", one, ctx.dtype("X"))


_NLL_ATTRS = {
    "ignore_index": Attr(-100, lambda v: isinstance(v, int), "an int", long=True),
    "reduction": Attr("mean", choices=("mean", "sum", "none")),
}
register(
    "nll_loss",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Weight?"],
    outputs=["Out", "Total_weight"],
    attrs=_NLL_ATTRS,
    infer=_infer_nll,
    traits=("result_0d_in_paddle2",),
    lod="drop",
    grad=_grad_of("nll_loss_grad", ("X", "Label", "Weight"), ("Total_weight",)),
    grad_reads=("X", "Label", "Weight", "Total_weight"),
    doc="Each position's loss is -X[class Label] * Weight[Label] (Weight 1 without it; 0 where Label is "
    "ignore_index); Out is those losses (reduction none), their sum, or their sum over Total_weight, the "
    "sum of the weights (mean; the sum when that is 0).",
    structured=Structured(meta=meta_rules.nll_meta, cpu=cpu_loss.NLL),
)
register(
    "nll_loss_grad",
    kernel_module="loss_classification",
    inputs=["X", "Label", "Weight?", "Total_weight", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_NLL_ATTRS,
    no_need_buffer=("X",),
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.nll_grad_meta, cpu=cpu_loss.NLL_GRAD),
)
