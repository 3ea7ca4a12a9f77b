"""sample_logits (Fluid 1.8), the sampling step of sampled_softmax_with_cross_entropy: each row keeps
its num_true label columns of Logits and num_samples negative columns shared by the batch, drawn
from the log-uniform (Zipfian) distribution without repeats, or given (kernels in
kernels/<device>/sample_logits.py)."""
from .define import Attr, fmt_shape, is_int, register


def _infer(ctx):
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


def _grad(g):
    g.op("sample_logits_grad", {"Logits": g.input("Logits"), "Samples": g.output("Samples"),
                                "SampledLogits@GRAD": g.out_grad("SampledLogits")},
         {"Logits@GRAD": g.in_grad("Logits")}, g.attrs)


def _infer_grad(ctx):
    ctx.set_output("Logits@GRAD", ctx.shape("Logits"), ctx.dtype("Logits"))


_ATTRS = {"use_customized_samples": False, "uniq": True, "remove_accidental_hits": True,
          "num_samples": Attr(1, lambda v: is_int(v) and v > 0, "an int > 0"), "seed": Attr(0, is_int, "an int")}
register("sample_logits", kernel_module="sample_logits",
         inputs=["Logits", "Labels", "CustomizedSamples?", "CustomizedProbabilities?"],
         outputs=["Samples", "Probabilities", "SampledLogits", "SampledLabels", "LogitsDim?", "LabelsDim?"],
         attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=("Logits", "Samples"), needs_rng=True, lod="drop",
         doc="Samples = each row's labels then num_samples negatives shared by the batch (log-uniform over the "
             "classes, P(k) = log((k + 2) / (k + 1)) / log(classes + 1), drawn until distinct; or "
             "CustomizedSamples); Probabilities = their sampling probabilities (for distinct draws, "
             "1 - (1 - P)^tries); SampledLogits = Logits at Samples - log(Probabilities), and 1e20 less where "
             "a negative is one of the row's labels (remove_accidental_hits); SampledLabels = 0..num_true-1. "
             "The gradient adds SampledLogits@GRAD back at Samples.")
register("sample_logits_grad", kernel_module="sample_logits", inputs=["Logits", "Samples", "SampledLogits@GRAD"],
         outputs=["Logits@GRAD"], attrs=_ATTRS, infer=_infer_grad)
