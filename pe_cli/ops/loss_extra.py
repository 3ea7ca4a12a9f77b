"""More of Fluid 1.8's losses and normalizations: norm (l2_normalize), label_smooth, smooth_l1_loss,
kldiv_loss, margin_rank_loss, rank_loss, bpr_loss (kernels in kernels/<device>/loss_extra.py)."""
from .define import Attr, fmt_shape, grads_like, is_int, register


def _same_shape(ctx, a, b):
    x, y = ctx.shape(a), ctx.shape(b)
    if len(x) != len(y) or any(p != q and p >= 0 and q >= 0 for p, q in zip(x, y)):
        ctx.fail(f"{b} {fmt_shape(y)} must have the shape of {a} {fmt_shape(x)}")
    if ctx.dtype(a) != ctx.dtype(b):
        ctx.fail(f"{b} is {ctx.dtype(b)} but {a} is {ctx.dtype(a)}; cast one of them")


def _grad_of(op_type, reads, ins_from_outputs=(), out_grads=("Out",), in_grads=("X",)):
    """A grad maker appending ``op_type`` that reads forward inputs ``reads``, forward outputs
    ``ins_from_outputs`` and the gradients of ``out_grads``, writing the gradients of ``in_grads``."""
    def grad(g):
        ins = {s: g.input(s) for s in reads}
        ins.update({s: g.output(s) for s in ins_from_outputs})
        ins.update({f"{s}@GRAD": g.out_grad(s) for s in out_grads})
        g.op(op_type, ins, {f"{s}@GRAD": g.in_grad(s) for s in in_grads}, g.attrs)
    return grad


# -- norm: l2_normalize ------------------------------------------------------------------------------

def _infer_norm(ctx):
    x, axis = ctx.shape("X"), ctx.attrs["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    norm = list(x)
    norm[axis % len(x)] = 1
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Norm", norm, ctx.dtype("X"))


_NORM_ATTRS = {"axis": Attr(-1, is_int, "an int"), "epsilon": Attr(1e-10, lambda v: v >= 0, ">= 0"),
               "is_test": False}
register("norm", kernel_module="loss_extra", inputs=["X"], outputs=["Out", "Norm"], attrs=_NORM_ATTRS,
         infer=_infer_norm, grad=_grad_of("norm_grad", ("X",), ("Norm",)), grad_reads=("Norm", "X"),
         doc="Norm = sqrt(sum(X^2 along axis) + epsilon) (that dim kept as 1); Out = X / Norm. "
             "The gradient flows through Out (Norm is a by-product, as in Fluid).")
register("norm_grad", kernel_module="loss_extra", inputs=["X", "Norm", "Out@GRAD"], outputs=["X@GRAD"],
         attrs=_NORM_ATTRS, infer=grads_like({"X@GRAD": "X"}))


# -- label_smooth ---------------------------------------------------------------------------------

def _infer_label_smooth(ctx):
    x = ctx.shape("X")
    if ctx.has_input("PriorDist"):
        p = ctx.shape("PriorDist")
        if len(p) > 2 or (p and p[-1] >= 0 and x[-1] >= 0 and p[-1] != x[-1]) or any(d > 1 for d in p[:-1]):
            ctx.fail(f"PriorDist {fmt_shape(p)} must be [1, {x[-1]}] (one probability per class of X "
                     f"{fmt_shape(x)})")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


_LS_ATTRS = {"epsilon": Attr(0.0, lambda v: 0 <= v <= 1, "between 0 and 1")}
register("label_smooth", kernel_module="loss_extra", inputs=["X", "PriorDist?"], outputs=["Out"], attrs=_LS_ATTRS,
         infer=_infer_label_smooth, grad=_grad_of("label_smooth_grad", ()),
         doc="Out = (1 - epsilon) * X + epsilon * PriorDist (epsilon / K, K = X's last dim, without "
             "PriorDist). The gradient is (1 - epsilon) * Out@GRAD.")
register("label_smooth_grad", kernel_module="loss_extra", inputs=["Out@GRAD"], outputs=["X@GRAD"],
         attrs=_LS_ATTRS, infer=grads_like({"X@GRAD": "Out@GRAD"}))


# -- smooth_l1_loss --------------------------------------------------------------------------------

def _infer_smooth_l1(ctx):
    _same_shape(ctx, "X", "Y")
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must have at least 2 dims (samples first)")
    weights = [ctx.has_input(s) for s in ("InsideWeight", "OutsideWeight")]
    if any(weights) and not all(weights):
        ctx.fail("give both InsideWeight and OutsideWeight, or neither")
    for slot in ("InsideWeight", "OutsideWeight"):
        if ctx.has_input(slot):
            _same_shape(ctx, "X", slot)
    ctx.set_output("Diff", x, ctx.dtype("X"))
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"))


_SL1_ATTRS = {"sigma": Attr(1.0, lambda v: v > 0, "> 0")}
register("smooth_l1_loss", kernel_module="loss_extra", inputs=["X", "Y", "InsideWeight?", "OutsideWeight?"],
         outputs=["Diff", "Out"], attrs=_SL1_ATTRS, infer=_infer_smooth_l1,
         grad=_grad_of("smooth_l1_loss_grad", ("InsideWeight", "OutsideWeight"), ("Diff",), in_grads=("X", "Y")),
         grad_reads=("Diff", "InsideWeight", "OutsideWeight"), lod="drop",
         doc="Diff = (X - Y) * InsideWeight; Out[i] = sum over sample i of OutsideWeight * "
             "(0.5 * sigma^2 * Diff^2 where |Diff| < 1 / sigma^2, else |Diff| - 0.5 / sigma^2), shape [N, 1]. "
             "The weights count only when both are given.")
register("smooth_l1_loss_grad", kernel_module="loss_extra",
         inputs=["InsideWeight?", "OutsideWeight?", "Diff", "Out@GRAD"], outputs=["X@GRAD?", "Y@GRAD?"],
         attrs=_SL1_ATTRS, infer=grads_like({"X@GRAD": "Diff", "Y@GRAD": "Diff"}))


# -- kldiv_loss ---------------------------------------------------------------------------------------

def _infer_kldiv(ctx):
    _same_shape(ctx, "X", "Target")
    x = ctx.shape("X")
    ctx.set_output("Loss", x if ctx.attrs["reduction"] == "none" else [1], ctx.dtype("X"))


_KL_ATTRS = {"reduction": Attr("mean", choices=("none", "batchmean", "mean", "sum"))}
register("kldiv_loss", kernel_module="loss_extra", inputs=["X", "Target"], outputs=["Loss"], attrs=_KL_ATTRS,
         infer=_infer_kldiv, grad=_grad_of("kldiv_loss_grad", ("X", "Target"), out_grads=("Loss",)),
         grad_reads=("Target", "X"), lod="drop",
         doc="Loss = Target * (log(Target) - X) where Target > 0, else 0 (X holds log-probabilities); "
             "reduced by `reduction`: none, sum, mean (over all elements) or batchmean (sum / rows). "
             "No gradient flows to Target.")
register("kldiv_loss_grad", kernel_module="loss_extra", inputs=["X", "Target", "Loss@GRAD"], outputs=["X@GRAD"],
         attrs=_KL_ATTRS, infer=grads_like({"X@GRAD": "X"}))


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------

def _infer_pairwise(slots, outs):
    def infer(ctx):
        first = ctx.shape(slots[0])
        for s in slots[1:]:
            _same_shape(ctx, slots[0], s)
        if len(first) != 2 or first[1] not in (1, -1):
            ctx.fail(f"{slots[0]} {fmt_shape(first)} must be [batch_size, 1], as every input")
        for o in outs:
            ctx.set_output(o, first, ctx.dtype(slots[0]))
    return infer


_MRL_ATTRS = {"margin": 0.0}
register("margin_rank_loss", kernel_module="loss_extra", inputs=["X1", "X2", "Label"], outputs=["Out", "Activated"],
         attrs=_MRL_ATTRS, infer=_infer_pairwise(("X1", "X2", "Label"), ("Out", "Activated")),
         grad=_grad_of("margin_rank_loss_grad", ("Label",), ("Activated",), in_grads=("X1", "X2")),
         grad_reads=("Activated", "Label"), lod="drop",
         doc="Out = max(0, -Label * (X1 - X2) + margin), Label in {1, -1}; Activated = 1 where Out > 0. "
             "No gradient flows to Label.")
register("margin_rank_loss_grad", kernel_module="loss_extra", inputs=["Label", "Activated", "Out@GRAD"],
         outputs=["X1@GRAD?", "X2@GRAD?"], attrs=_MRL_ATTRS, infer=grads_like({"X1@GRAD": "Label", "X2@GRAD": "Label"}))

register("rank_loss", kernel_module="loss_extra", inputs=["Label", "Left", "Right"], outputs=["Out"],
         infer=_infer_pairwise(("Left", "Right", "Label"), ("Out",)),
         grad=_grad_of("rank_loss_grad", ("Label", "Left", "Right"), in_grads=("Left", "Right")),
         grad_reads=("Label", "Left", "Right"), lod="drop",
         doc="Out = log(1 + exp(Left - Right)) - Label * (Left - Right) (RankNet; Label a probability). "
             "No gradient flows to Label.")
register("rank_loss_grad", kernel_module="loss_extra", inputs=["Label", "Left", "Right", "Out@GRAD"],
         outputs=["Left@GRAD?", "Right@GRAD?"], infer=grads_like({"Left@GRAD": "Left", "Right@GRAD": "Right"}))


# -- bpr_loss ---------------------------------------------------------------------------------------

def _infer_bpr(ctx):
    x, label = ctx.shape("X"), ctx.shape("Label")
    if len(x) < 2 or len(label) != len(x) or label[-1] not in (1, -1) or any(
            a != b and a >= 0 and b >= 0 for a, b in zip(label[:-1], x[:-1])):
        ctx.fail(f"Label {fmt_shape(label)} must be {fmt_shape(list(x[:-1]) + [1])} (int64 positive items) for "
                 f"X {fmt_shape(x)}")
    if ctx.dtype("Label") not in ("int32", "int64"):
        ctx.fail(f"Label is {ctx.dtype('Label')}; it holds int64 item ids")
    ctx.set_output("Y", list(x[:-1]) + [1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


register("bpr_loss", kernel_module="loss_extra", inputs=["X", "Label"], outputs=["Y"], infer=_infer_bpr,
         grad=_grad_of("bpr_loss_grad", ("X", "Label"), out_grads=("Y",)), grad_reads=("Label", "X"),
         doc="Y = mean over the items j other than the row's positive item p = Label of "
             "log(1 + exp(X[j] - X[p])) (Bayesian personalized ranking; X holds scores per item).")
register("bpr_loss_grad", kernel_module="loss_extra", inputs=["X", "Label", "Y@GRAD"], outputs=["X@GRAD"],
         infer=grads_like({"X@GRAD": "X"}))


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------

_TS_ATTRS = {"soft_max_up_bound": 15.0, "soft_max_lower_bound": -15.0}
register("teacher_student_sigmoid_loss", kernel_module="loss_extra", inputs=["X", "Label"], outputs=["Y"],
         attrs=_TS_ATTRS, infer=_infer_pairwise(("X", "Label"), ("Y",)),
         grad=_grad_of("teacher_student_sigmoid_loss_grad", ("X", "Label"), out_grads=("Y",)),
         grad_reads=("Label", "X"), lod="drop",
         doc="Y = the sigmoid cross-entropy of logit X with the click z and, when given, a teacher's value q, "
             "coded in Label: -2 (z = 0, no q), -1 (z = 1, no q), q (z = 0) or 1 + q (z = 1): "
             "softplus(X) - z X, plus softplus(X) - q X when q is given. The gradient, as Fluid's, is 0 where "
             "X lies outside (soft_max_lower_bound, soft_max_up_bound).")
register("teacher_student_sigmoid_loss_grad", kernel_module="loss_extra", inputs=["X", "Label", "Y@GRAD"],
         outputs=["X@GRAD"], attrs=_TS_ATTRS, infer=grads_like({"X@GRAD": "X"}))


# -- center_loss ----------------------------------------------------------------------------------------

def _infer_center_loss(ctx):
    x, label, centers = ctx.shape("X"), ctx.shape("Label"), ctx.shape("Centers")
    if len(x) != 2 or len(centers) != 2 or (x[1] >= 0 and centers[1] >= 0 and x[1] != centers[1]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, D] and Centers {fmt_shape(centers)} [cluster_num, D]")
    if ctx.dtype("Label") not in ("int32", "int64") or len(label) not in (1, 2):
        ctx.fail(f"Label must be int64 [N, 1] class ids, got {ctx.dtype('Label')} {fmt_shape(label)}")
    ctx.set_output("SampleCenterDiff", x, ctx.dtype("X"))
    ctx.set_output("Loss", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("CentersOut", centers, ctx.dtype("Centers"))


_CL_ATTRS = {"cluster_num": Attr(None, lambda v: is_int(v) and v > 0, "an int > 0"), "need_update": False}
register("center_loss", kernel_module="center_loss", inputs=["X", "Label", "Centers", "CenterUpdateRate"],
         outputs=["SampleCenterDiff", "Loss", "CentersOut"], attrs=_CL_ATTRS, infer=_infer_center_loss,
         grad=_grad_of("center_loss_grad", (), ("SampleCenterDiff",), out_grads=("Loss",)),
         grad_reads=("SampleCenterDiff",), lod="drop",
         doc="SampleCenterDiff = X - Centers[Label]; Loss = half its squared norm per row. With need_update, "
             "CentersOut[j] = Centers[j] + alpha * (sum of the diffs of class j) / (1 + their count), alpha = "
             "CenterUpdateRate. The gradient flows to X only.")
register("center_loss_grad", kernel_module="center_loss", inputs=["SampleCenterDiff", "Loss@GRAD"],
         outputs=["X@GRAD"], attrs=_CL_ATTRS, infer=grads_like({"X@GRAD": "SampleCenterDiff"}))
