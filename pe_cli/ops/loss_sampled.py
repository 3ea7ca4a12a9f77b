"""Losses over a sample of the classes (kernels in kernels/<device>/loss_sampled.py):
hierarchical_sigmoid (Fluid 1.8's hsigmoid), the loss of a label along its path in a binary tree of
classifiers, the default complete tree over num_classes or a custom one given by PathTable and
PathCode; and sample_logits (Fluid 1.8), the sampling step of sampled_softmax_with_cross_entropy:
each row keeps its num_true label columns of Logits and num_samples negative columns shared by the
batch, drawn from the log-uniform (Zipfian) distribution without repeats, or given; and nce (Fluid 1.8),
noise-contrastive estimation over num_neg_samples classes drawn per row."""

from ..kernels.cpu import loss_sampled as cpu_sampled
from ..shapes import loss_sampled as metas
from ..shapes.structured import Structured
from .define import Attr, backend_attrs, fmt_shape, is_int, register


def _infer(ctx):
    x, w, label = ctx.shape("X"), ctx.shape("W"), ctx.shape("Label")
    n = ctx.attrs["num_classes"]
    if len(x) != 2 or len(w) != 2 or (x[1] >= 0 and w[1] >= 0 and x[1] != w[1]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, D] and W {fmt_shape(w)} [nodes, D]")
    if ctx.dtype("Label") != "int64" or len(label) not in (1, 2):
        ctx.fail(f"Label must be int64 [N, 1], got {ctx.dtype('Label')} {fmt_shape(label)}")
    custom = ctx.has_input("PathTable")
    if custom != ctx.has_input("PathCode"):
        ctx.fail("a custom tree needs both PathTable and PathCode")
    if custom:
        length = ctx.shape("PathTable")[1]
    else:
        if n is None or n < 2:
            ctx.fail(f"num_classes={n} must be >= 2 for the default tree")
        length = (n - 1).bit_length()
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("PreOut", [x[0], length], ctx.dtype("X"))
    ctx.set_output("W_Out", w, ctx.dtype("W"))


def _grad(g):
    ins = {s: g.input(s) for s in ("X", "W", "Label", "PathTable", "PathCode") if g.input(s)}
    ins.update({"PreOut": g.output("PreOut"), "Out@GRAD": g.out_grad("Out")})
    g.op(
        "hierarchical_sigmoid_grad",
        ins,
        {"X@GRAD": g.in_grad("X"), "W@GRAD": g.in_grad("W"), "Bias@GRAD": g.in_grad("Bias")},
        g.attrs,
    )


def _infer_grad(ctx):
    for slot in ("X", "W", "Bias"):
        if ctx.has_output(slot + "@GRAD"):
            ref = slot if slot != "Bias" else "W"
            shape = ctx.shape(ref) if slot != "Bias" else [ctx.shape("W")[0], 1]
            ctx.set_output(slot + "@GRAD", shape, ctx.dtype(ref))


# Fluid's distributed lookup of W's rows (a table split over parameter servers) steers nothing in pe,
# whose tables are local, as in Fluid's kernel without remote_prefetch
_REMOTE = backend_attrs("remote_prefetch", "trainer_id", "height_sections", "epmap", "table_names")
_ATTRS = {"num_classes": Attr(2, is_int, "an int (>= 2 for the default tree)"), "is_sparse": False, **_REMOTE}
register(
    "hierarchical_sigmoid",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.hsigmoid_meta, cpu=cpu_sampled.hierarchical_sigmoid),
    inputs=["X", "W", "Label", "PathTable?", "PathCode?", "Bias?"],
    outputs=["Out", "PreOut", "W_Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("Label", "PathCode", "PathTable", "PreOut", "W", "X"),
    lod="drop",
    doc="Along the path of Label (default tree: node (c >> (j + 1)) - 1 and bit c & (1 << j) of "
    "c = Label + num_classes, for j below c's bit length - 1; custom: PathTable / PathCode rows, "
    "cut at the first negative node), p_j = clip(W[node_j] . X + Bias[node_j], -40, 40) and "
    "Out = sum_j softplus(p_j) - bit_j p_j; PreOut = softplus(p) (log 2 past a short path, whose "
    "constant Out includes, as Fluid's). The gradient ignores the clip, as Fluid's.",
)
register(
    "hierarchical_sigmoid_grad",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.hsigmoid_grad_meta, cpu=cpu_sampled.hierarchical_sigmoid_grad),
    inputs=["X", "W", "Label", "PathTable?", "PathCode?", "PreOut", "Out@GRAD"],
    outputs=["X@GRAD?", "W@GRAD?", "Bias@GRAD?"],
    attrs=_ATTRS,
    infer=_infer_grad,
)


# -- sample_logits ----------------------------------------------------------------------------------


def _infer_sample_logits(ctx):
    logits, labels = ctx.shape("Logits"), ctx.shape("Labels")
    a = ctx.attrs
    if len(logits) != 2 or len(labels) != 2 or (logits[0] >= 0 and labels[0] >= 0 and logits[0] != labels[0]):
        ctx.fail(f"Logits {fmt_shape(logits)} must be [N, classes] and Labels {fmt_shape(labels)} [N, num_true]")
    if ctx.dtype("Labels") != "int64":
        ctx.fail(f"Labels is {ctx.dtype('Labels')}; it holds int64 class ids")
    width = labels[1] + a["num_samples"] if labels[1] >= 0 else -1
    if a["use_customized_samples"]:
        if not (ctx.has_input("CustomizedSamples") and ctx.has_input("CustomizedProbabilities")):
            ctx.fail("use_customized_samples needs CustomizedSamples and CustomizedProbabilities")
        width = ctx.shape("CustomizedSamples")[1]
    elif logits[1] >= 0 and a["num_samples"] > logits[1]:
        ctx.fail(f"num_samples={a['num_samples']} distinct negatives cannot come from {logits[1]} classes")
    ctx.set_output("Samples", [logits[0], width], "int64")
    ctx.set_output("Probabilities", [logits[0], width], ctx.dtype("Logits"))
    ctx.set_output("SampledLogits", [logits[0], width], ctx.dtype("Logits"))
    ctx.set_output("SampledLabels", [logits[0], labels[1]], "int64")
    ctx.set_output("LogitsDim", [1, 2], "int64")
    ctx.set_output("LabelsDim", [1, 2], "int64")


def _grad_sample_logits(g):
    g.op(
        "sample_logits_grad",
        {
            "Logits": g.input("Logits"),
            "Samples": g.output("Samples"),
            "SampledLogits@GRAD": g.out_grad("SampledLogits"),
        },
        {"Logits@GRAD": g.in_grad("Logits")},
        g.attrs,
    )


def _infer_sample_logits_grad(ctx):
    ctx.set_output("Logits@GRAD", ctx.shape("Logits"), ctx.dtype("Logits"))


_SL_ATTRS = {
    "use_customized_samples": False,
    "uniq": True,
    "remove_accidental_hits": True,
    "num_samples": Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"),
    "seed": Attr(0, is_int, "an int"),
}
register(
    "sample_logits",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.sample_logits_meta, cpu=cpu_sampled.sample_logits_out),
    inputs=["Logits", "Labels", "CustomizedSamples?", "CustomizedProbabilities?"],
    outputs=["Samples", "Probabilities", "SampledLogits", "SampledLabels", "LogitsDim", "LabelsDim"],
    attrs=_SL_ATTRS,
    infer=_infer_sample_logits,
    grad=_grad_sample_logits,
    grad_reads=("Logits", "Samples"),
    needs_rng=True,
    lod="drop",
    doc="Samples = each row's labels then num_samples negatives shared by the batch (log-uniform over the "
    "classes, P(k) = log((k + 2) / (k + 1)) / log(classes + 1), drawn until distinct; or "
    "CustomizedSamples); Probabilities = their sampling probabilities (for distinct draws, "
    "1 - (1 - P)^tries); SampledLogits = Logits at Samples - log(Probabilities), and 1e20 less where "
    "a negative is one of the row's labels (remove_accidental_hits); SampledLabels = 0..num_true-1. "
    "The gradient adds SampledLogits@GRAD back at Samples.",
)
register(
    "sample_logits_grad",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.sample_logits_grad_meta, cpu=cpu_sampled.sample_logits_grad),
    inputs=["Logits", "Samples", "SampledLogits@GRAD"],
    outputs=["Logits@GRAD"],
    attrs=_SL_ATTRS,
    infer=_infer_sample_logits_grad,
)


# -- nce -----------------------------------------------------------------------------------------------

_NCE_SAMPLERS = (0, 1, 2)  # uniform, log_uniform, custom_dist (the alias table CustomDist*)


def _infer_nce(ctx):
    x, label, w = ctx.shape("Input"), ctx.shape("Label"), ctx.shape("Weight")
    a = ctx.attrs
    if len(x) != 2 or len(w) != 2 or (x[1] >= 0 and w[1] >= 0 and x[1] != w[1]):
        ctx.fail(f"Input {fmt_shape(x)} must be [N, D] and Weight {fmt_shape(w)} [num_total_classes, D]")
    if len(label) != 2 or (x[0] >= 0 and label[0] >= 0 and x[0] != label[0]):
        ctx.fail(f"Label must be int64 [N, num_true] for Input {fmt_shape(x)}, got {fmt_shape(label)}")
    if a["custom_neg_classes"] and len(a["custom_neg_classes"]) != a["num_neg_samples"]:
        ctx.fail(f"custom_neg_classes {a['custom_neg_classes']} must hold num_neg_samples={a['num_neg_samples']} ids")
    if a["sampler"] == 2 and not all(
        ctx.has_input(s) for s in ("CustomDistProbs", "CustomDistAlias", "CustomDistAliasProbs")
    ):
        ctx.fail("sampler 2 (custom_dist) needs CustomDistProbs, CustomDistAlias and CustomDistAliasProbs")
    width = label[1] + a["num_neg_samples"] if label[1] >= 0 else -1
    ctx.set_output("Cost", [x[0], 1], ctx.dtype("Input"))
    ctx.set_output("SampleLogits", [x[0], width], ctx.dtype("Input"))
    ctx.set_output("SampleLabels", [x[0], width], "int64")


_NCE_READS = (
    "Input",
    "Label",
    "Bias",
    "Weight",
    "SampleWeight",
    "CustomDistProbs",
    "CustomDistAlias",
    "CustomDistAliasProbs",
)


def _grad_nce(g):
    ins = {s: g.input(s) for s in _NCE_READS if g.input(s)}
    ins.update(
        {
            "SampleLogits": g.output("SampleLogits"),
            "SampleLabels": g.output("SampleLabels"),
            "Cost@GRAD": g.out_grad("Cost"),
        }
    )
    g.op("nce_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in ("Input", "Weight", "Bias")}, g.attrs)


def _infer_nce_grad(ctx):
    for slot in ("Input", "Weight", "Bias"):
        if ctx.has_output(slot + "@GRAD"):
            ctx.set_output(slot + "@GRAD", ctx.shape(slot), ctx.dtype(slot))


_NCE_ATTRS = {
    "num_total_classes": Attr(None, lambda v: is_int(v) and v > 1, "an int > 1"),
    "num_neg_samples": Attr(10, lambda v: is_int(v) and v > 0, "an int > 0"),
    "sampler": Attr(0, choices=_NCE_SAMPLERS),
    "seed": Attr(0, is_int, "an int"),
    "custom_neg_classes": [],
    "is_sparse": False,
    "is_test": False,
    **_REMOTE,
}
register(
    "nce",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.nce_meta, cpu=cpu_sampled.nce_out),
    run_dtypes={"Label": ("int64",)},
    inputs=[
        "Input",
        "Label",
        "Weight",
        "Bias?",
        "SampleWeight?",
        "CustomDistProbs?",
        "CustomDistAlias?",
        "CustomDistAliasProbs?",
    ],
    outputs=["Cost", "SampleLogits", "SampleLabels"],
    attrs=_NCE_ATTRS,
    infer=_infer_nce,
    grad=_grad_nce,
    grad_reads=_NCE_READS + ("SampleLogits", "SampleLabels"),
    needs_rng=True,
    lod="drop",
    doc="Noise-contrastive estimation (Fluid's nce): each row's SampleLabels are its num_true labels, then "
    "num_neg_samples classes drawn for it (uniform over the classes, log-uniform P(k) = log((k + 2) / "
    "(k + 1)) / log(num_total_classes), or the custom distribution by its alias table; custom_neg_classes "
    "fixes them); SampleLogits o = sigmoid(Input . Weight[k] + Bias[k]); with b = P(k) num_neg_samples, "
    "Cost = SampleWeight * (sum over true k of -log(o / (o + b)) + over negatives of -log(b / (o + b))).",
)
register(
    "nce_grad",
    kernel_module="loss_sampled",
    structured=Structured(meta=metas.nce_grad_meta, cpu=cpu_sampled.nce_grad_out),
    inputs=[
        "Input",
        "Label",
        "Weight",
        "Bias?",
        "SampleWeight?",
        "CustomDistProbs?",
        "CustomDistAlias?",
        "CustomDistAliasProbs?",
        "SampleLogits",
        "SampleLabels",
        "Cost@GRAD",
    ],
    outputs=["Input@GRAD?", "Weight@GRAD?", "Bias@GRAD?"],
    attrs=_NCE_ATTRS,
    infer=_infer_nce_grad,
)
