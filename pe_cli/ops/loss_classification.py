"""Losses and the softmax family."""
from .registry import Attr, fmt_shape, grads_like, register


def _check_label(ctx, logits, label, soft, name="Logits"):
    if soft:
        if len(label) != len(logits) or any(a != b and a >= 0 and b >= 0 for a, b in zip(label, logits)):
            ctx.fail(f"soft_label needs Label shaped like {name} {fmt_shape(logits)}, got {fmt_shape(label)}")
    elif len(label) != len(logits) or label[-1] != 1 or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(label[:-1], logits[:-1])):
        ctx.fail(f"Label must be {fmt_shape(list(logits[:-1]) + [1])} (int64 class ids) for "
                 f"{name} {fmt_shape(logits)}, got {fmt_shape(label)}")
    elif ctx.dtype("Label") not in ("int64", "int32"):
        ctx.fail(f"Label {fmt_shape(label)} must hold int64 class ids for {name} {fmt_shape(logits)}, "
                 f"got {ctx.dtype('Label')}; use soft_label=True for probabilities")


def _infer_swce(ctx):
    logits, label = ctx.shape("Logits"), ctx.shape("Label")
    _check_label(ctx, logits, label, ctx.attrs["soft_label"])
    ctx.set_output("Softmax", logits, ctx.dtype("Logits"))
    ctx.set_output("Loss", list(logits[:-1]) + [1], ctx.dtype("Logits"))


def _grad_swce(g):
    g.op("softmax_with_cross_entropy_grad",
         {"Label": g.input("Label"), "Softmax": g.output("Softmax"), "Loss@GRAD": g.out_grad("Loss")},
         {"Logits@GRAD": g.in_grad("Logits")}, g.attrs)


_SWCE_ATTRS = {"soft_label": False, "ignore_index": -100, "numeric_stable_mode": True, "axis": -1,
               # Paddle 2.x's (a model it saved carries it): only Fluid's softmax-then-cross-entropy
               "use_softmax": Attr(True, choices=(True,))}
register("softmax_with_cross_entropy", kernel_module="loss",
         grad_reads=("Label", "Softmax"), inputs=["Logits", "Label"], outputs=["Softmax", "Loss"],
         attrs=_SWCE_ATTRS, infer=_infer_swce, grad=_grad_swce,
         doc="Loss = -log(softmax(Logits)[Label]) per row; Softmax is kept for the gradient.")
register("softmax_with_cross_entropy_grad", kernel_module="loss", inputs=["Label", "Softmax", "Loss@GRAD"],
         outputs=["Logits@GRAD"], attrs=_SWCE_ATTRS, infer=grads_like({"Logits@GRAD": "Softmax"}))


# -- cross_entropy (X holds probabilities) ---------------------------------------------------------

def _infer_cross_entropy(ctx):
    x, label = ctx.shape("X"), ctx.shape("Label")
    _check_label(ctx, x, label, ctx.attrs["soft_label"], name="X")
    ctx.set_output("Y", list(x[:-1]) + [1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_cross_entropy(g):
    g.op("cross_entropy_grad", {"X": g.input("X"), "Label": g.input("Label"), "Y@GRAD": g.out_grad("Y")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


_CE_ATTRS = {"soft_label": False, "ignore_index": -100}
register("cross_entropy", kernel_module="loss", grad_reads=("Label", "X"),
         inputs=["X", "Label"], outputs=["Y"], attrs=_CE_ATTRS, infer=_infer_cross_entropy,
         grad=_grad_cross_entropy,
         doc="Y = -log(X[Label]) per row (X holds probabilities, Label int64 [.., 1]; rows with "
             "ignore_index give 0), or -sum(Label * log(X)) with soft_label.")
register("cross_entropy_grad", kernel_module="loss",
         inputs=["X", "Label", "Y@GRAD"], outputs=["X@GRAD"], attrs=_CE_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))


# cross_entropy2: Fluid 1.x's op for hard labels (what layers.cross_entropy builds unless soft_label),
# served by cross_entropy's kernels. XShape and MatchX, Fluid's extra outputs, are accepted and left
# unwritten: pe's gradient reads X itself.
def _grad_cross_entropy2(g):
    g.op("cross_entropy_grad2", {"X": g.input("X"), "Label": g.input("Label"), "Y@GRAD": g.out_grad("Y")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


_CE2_ATTRS = {"soft_label": Attr(False, choices=(False,)), "ignore_index": -100}
register("cross_entropy2", kernel_module="loss", kernel="cross_entropy", grad_reads=("Label", "X"),
         inputs=["X", "Label"], outputs=["Y", "XShape?", "MatchX?"], attrs=_CE2_ATTRS,
         infer=_infer_cross_entropy, grad=_grad_cross_entropy2,
         doc="Y = -log(X[Label]) per row, hard labels only (rows with ignore_index give 0).")
register("cross_entropy_grad2", kernel_module="loss", kernel="cross_entropy_grad",
         inputs=["X", "Label", "Y@GRAD"], outputs=["X@GRAD"], attrs=_CE2_ATTRS,
         infer=grads_like({"X@GRAD": "X"}))


# -- sigmoid_cross_entropy_with_logits --------------------------------------------------------------

def _infer_same_shapes(a, b, out):
    def infer(ctx):
        x, y = ctx.shape(a), ctx.shape(b)
        if len(x) != len(y) or any(p != q and p >= 0 and q >= 0 for p, q in zip(x, y)):
            ctx.fail(f"{b} {fmt_shape(y)} must have the shape of {a} {fmt_shape(x)}")
        if ctx.dtype(a) != ctx.dtype(b):
            ctx.fail(f"{b} {fmt_shape(y)} is {ctx.dtype(b)} but {a} {fmt_shape(x)} is {ctx.dtype(a)}; "
                     f"cast one of them")
        for slot in out:
            ctx.set_output(slot, x, ctx.dtype(a), lod_level=ctx.input_var(a).lod_level)
    return infer


def _grad_sce(g):
    g.op("sigmoid_cross_entropy_with_logits_grad",
         {"X": g.input("X"), "Label": g.input("Label"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X")}, g.attrs)


_SCE_ATTRS = {"ignore_index": -100, "normalize": False}
register("sigmoid_cross_entropy_with_logits", kernel_module="loss", grad_reads=("Label", "X"),
         inputs=["X", "Label"], outputs=["Out"], attrs=_SCE_ATTRS,
         infer=_infer_same_shapes("X", "Label", ["Out"]), grad=_grad_sce,
         doc="Out = max(X, 0) - X * Label + log(1 + exp(-|X|)) elementwise; 0 where Label == ignore_index; "
             "normalize divides by the number of elements whose Label is not ignore_index.")
register("sigmoid_cross_entropy_with_logits_grad", kernel_module="loss",
         inputs=["X", "Label", "Out@GRAD"], outputs=["X@GRAD"],
         attrs=_SCE_ATTRS, infer=grads_like({"X@GRAD": "X"}))


# -- huber_loss -------------------------------------------------------------------------------------

def _grad_huber(g):
    g.op("huber_loss_grad", {"Residual": g.output("Residual"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")}, g.attrs)


def _infer_huber_grad(ctx):
    r = ctx.input_var("Residual")
    ctx.set_output("X@GRAD", r.shape, r.dtype)
    ctx.set_output("Y@GRAD", r.shape, r.dtype)


_HUBER_ATTRS = {"delta": Attr(1.0, lambda v: v > 0, "> 0")}
register("huber_loss", kernel_module="loss",
         grad_reads=("Residual",), inputs=["X", "Y"], outputs=["Out", "Residual"], attrs=_HUBER_ATTRS,
         infer=_infer_same_shapes("X", "Y", ["Out", "Residual"]), grad=_grad_huber,
         doc="Residual = Y - X; Out = 0.5 * r^2 where |r| <= delta, else delta * (|r| - 0.5 * delta).")
register("huber_loss_grad", kernel_module="loss", inputs=["Residual", "Out@GRAD"], outputs=["X@GRAD?", "Y@GRAD?"],
         attrs=_HUBER_ATTRS, infer=_infer_huber_grad)
