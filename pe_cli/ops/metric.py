"""Metric ops: accuracy, auc and mean_iou (top_k and arg_max/arg_min, which accuracy reads, are in indexing.py).
None of them has a gradient."""

from ..kernels.cpu import metric as cpu_metric
from ..shapes import metric as rules
from .define import Attr, Structured, fmt_shape, register


def _infer_accuracy(ctx):
    out, idx, label = ctx.shape("Out"), ctx.shape("Indices"), ctx.shape("Label")
    # (Fluid checks Label's rank when the op is built, the rest when it runs)
    if ctx.is_runtime and (len(out) != 2 or list(out) != list(idx)):
        ctx.fail(f"Out {fmt_shape(out)} and Indices {fmt_shape(idx)} must both be [N, k] (top_k's outputs)")
    if len(label) != 2 or ctx.is_runtime and (label[1] != 1 or label[0] != idx[0]):
        ctx.fail(
            f"Label must be [{idx[0]}, 1] (int64 class ids) for the predictions {fmt_shape(idx)}, "
            f"got {fmt_shape(label)}"
        )
    one = ctx.scalar_shape()
    ctx.set_output("Accuracy", one, "float32")
    ctx.set_output("Correct", one, "int32")
    ctx.set_output("Total", one, "int32")


register(
    "accuracy",
    structured=Structured(meta=rules.accuracy_meta, cpu=cpu_metric.OUT["accuracy"]),
    kernel_module="metric",
    inputs=["Out", "Indices", "Label"],
    outputs=["Accuracy", "Correct", "Total"],
    infer=_infer_accuracy,
    run_infer=True,
    traits=("metric", "result_0d_in_paddle2"),
    doc="Correct = rows whose Label is among their top-k Indices; Total = rows; Accuracy = Correct / Total (float32).",
)


def _infer_auc(ctx):
    pred, label, a = ctx.shape("Predict"), ctx.shape("Label"), ctx.attrs
    if len(pred) != 2:  # (its width, 1 or 2, is checked when it runs, as Fluid's)
        ctx.fail(f"Predict {fmt_shape(pred)} must be [N, 2] (the positive class's probability last) or [N, 1]")
    if ctx.is_runtime and label[0] != pred[0]:  # (Fluid compares them when it runs)
        ctx.fail(f"Label {fmt_shape(label)} must have Predict's {pred[0]} rows")
    # Fluid's shapes of the counts, whatever StatPos/StatNeg were declared as: its layer declares the
    # window's [(1 + slide_steps) * buckets + 1] for slide_steps=0 too, and its kernel reads the first
    # counts of it (the kernel pads a shorter one with zeros where Fluid reads past its end)
    buckets, steps = a["num_thresholds"] + 1, a["slide_steps"]
    for slot in ("StatPos", "StatNeg"):
        ctx.set_output(slot + "Out", [(1 + steps) * buckets + 1] if steps else [1, buckets], "int64")
    ctx.set_output("AUC", ctx.scalar_shape(), "float64")  # ([1]; 0-D in a Paddle 2.x program, as 2.6's InferMeta)


register(
    "auc",
    structured=Structured(meta=rules.auc_meta, cpu=cpu_metric.OUT["auc"]),
    kernel_module="metric",
    inputs=["Predict", "Label", "StatPos", "StatNeg"],
    outputs=["AUC", "StatPosOut", "StatNegOut"],
    infer=_infer_auc,
    run_infer=True,
    traits=("metric", "result_0d_in_paddle2"),
    lod="drop",
    # (curve: Fluid's kernel computes the ROC area whatever it names; its layer writes ROC or PR)
    attrs={
        "curve": Attr("ROC", choices=("ROC", "PR")),
        "num_thresholds": Attr((2 << 12) - 1, lambda v: isinstance(v, int) and v >= 0, "an int >= 0"),
        "slide_steps": Attr(1, lambda v: isinstance(v, int) and v >= 0, "an int >= 0"),
    },
    doc="The area under the ROC curve of the positive probabilities (Predict's last column) against "
    "Label (> 0 positive, 0 negative, others left out), from counts per threshold bucket "
    "(int(p * num_thresholds)): with slide_steps 0 the counts StatPos/StatNeg ([1, num_thresholds "
    "+ 1]: the first of a longer one) accumulate over every batch; else they hold the last slide_steps "
    "batches' counts, their sum and a batch counter, and the AUC is of that window. StatPosOut and "
    "StatNegOut are the updated counts (the same variables in Fluid's layer).",
)


def _infer_mean_iou(ctx):
    pred, label = ctx.shape("Predictions"), ctx.shape("Labels")
    if len(pred) != len(label) or any(a != b and a >= 0 and b >= 0 for a, b in zip(pred, label)):
        ctx.fail(f"Labels {fmt_shape(label)} must have the shape of Predictions {fmt_shape(pred)}")
    n = ctx.attrs["num_classes"]
    ctx.set_output("OutMeanIou", [1], "float32")
    ctx.set_output("OutWrong", [n], "int32")
    ctx.set_output("OutCorrect", [n], "int32")


register(
    "mean_iou",
    structured=Structured(meta=rules.mean_iou_meta, cpu=cpu_metric.OUT["mean_iou"]),
    kernel_module="metric",
    run_dtypes={"Predictions": ("int32", "int64"), "Labels": ("int32", "int64")},
    inputs=["Predictions", "Labels", "InWrongs*?", "InCorrects*?", "InMeanIou*?"],
    outputs=["OutMeanIou", "OutWrong", "OutCorrect"],
    infer=_infer_mean_iou,
    traits=("metric",),
    lod="drop",
    attrs={"num_classes": Attr(None, lambda v: isinstance(v, int) and v >= 1, "an int >= 1")},
    doc="Per class c: OutCorrect = the positions predicting c where Labels is c, OutWrong = those where one "
    "of them is c and the other not (plus InCorrects / InWrongs, summed); OutMeanIou = the mean of "
    "correct / (correct + wrong) over the classes seen (plus InMeanIou's values).",
)


def _infer_pair(ctx):
    score, label, query = ctx.shape("Score"), ctx.shape("Label"), ctx.shape("QueryID")
    if len(score) != 2 or len(label) != 2 or len(query) != 2:
        ctx.fail(f"Score {fmt_shape(score)}, Label {fmt_shape(label)} and QueryID {fmt_shape(query)} must be 2-D")
    col = ctx.attrs["column"]
    if score[1] >= 0 and not -score[1] <= col < score[1]:
        ctx.fail(f"column {col} is outside Score's {score[1]} columns")
    accumulated = [
        ctx.has_input(s) for s in ("AccumulatePositivePair", "AccumulateNegativePair", "AccumulateNeutralPair")
    ]
    if any(accumulated) and not all(accumulated):
        ctx.fail("give all three Accumulate*Pair inputs or none")
    for slot in ("PositivePair", "NegativePair", "NeutralPair"):
        ctx.set_output(slot, [1], ctx.dtype("Score"))


register(
    "positive_negative_pair",
    structured=Structured(meta=rules.positive_negative_pair_meta, cpu=cpu_metric.OUT["positive_negative_pair"]),
    kernel_module="metric",
    inputs=[
        "Score",
        "Label",
        "QueryID",
        "AccumulatePositivePair?",
        "AccumulateNegativePair?",
        "AccumulateNeutralPair?",
        "Weight?",
    ],
    outputs=["PositivePair", "NegativePair", "NeutralPair?"],
    attrs={"column": 0},
    infer=_infer_pair,
    traits=("metric",),
    lod="drop",
    doc="Over each query's pairs of documents with different labels (weighted by the mean of their "
    "Weight): PositivePair sums the pairs whose Score[:, column] orders them as their labels do, "
    "NegativePair the others (ties included, as Fluid's), NeutralPair the ties; plus the Accumulate* values.",
)


def _infer_precision_recall(ctx):
    n = ctx.attrs["class_number"]
    if ctx.is_runtime:  # (Fluid checks the shapes when it runs)
        _precision_recall_shapes(ctx, n)
    ctx.set_output("BatchMetrics", [6], "float64")
    ctx.set_output("AccumMetrics", [6], "float64")
    ctx.set_output("AccumStatesInfo", [n, 4], ctx.dtype("MaxProbs"))


def _precision_recall_shapes(ctx, n):
    probs, labels = list(ctx.shape("MaxProbs")), list(ctx.shape("Labels"))
    if len(probs) != 2 or probs[1] != 1 or list(ctx.shape("Indices")) != probs:
        ctx.fail(f"MaxProbs {fmt_shape(probs)} and Indices {fmt_shape(ctx.shape('Indices'))} must be [N, 1]")
    if len(labels) != 2 or labels != probs:
        ctx.fail(f"Labels {fmt_shape(labels)} must be [N, 1] = {fmt_shape(probs)}")
    if ctx.has_input("Weights") and list(ctx.shape("Weights")) != probs:
        ctx.fail(f"Weights {fmt_shape(ctx.shape('Weights'))} must be [N, 1] = {fmt_shape(probs)}")
    if ctx.has_input("StatesInfo") and list(ctx.shape("StatesInfo")) != [n, 4]:
        ctx.fail(f"StatesInfo {fmt_shape(ctx.shape('StatesInfo'))} must be [class_number, 4] = [{n}, 4]")


register(
    "precision_recall",
    structured=Structured(meta=rules.precision_recall_meta, cpu=cpu_metric.OUT["precision_recall"]),
    kernel_module="metric",
    inputs=["MaxProbs", "Indices", "Labels", "Weights?", "StatesInfo?"],
    outputs=["BatchMetrics", "AccumMetrics", "AccumStatesInfo"],
    infer=_infer_precision_recall,
    run_infer=True,
    attrs={"class_number": Attr(2, lambda v: isinstance(v, int) and v >= 1, "an int >= 1")},
    traits=("metric",),
    lod="drop",
    doc="Per class the weighted TP, FP, TN, FN of the predicted Indices against Labels (AccumStatesInfo: "
    "this batch's plus StatesInfo); BatchMetrics and AccumMetrics: macro precision, recall, F1, "
    "micro precision, recall, F1 of this batch and of the accumulated states.",
)
