"""Metric ops: accuracy and auc (top_k and arg_max/arg_min, which accuracy reads, are in indexing.py).
None of them has a gradient."""
from .define import Attr, fmt_shape, register


def _infer_accuracy(ctx):
    out, idx, label = ctx.shape("Out"), ctx.shape("Indices"), ctx.shape("Label")
    if len(out) != 2 or len(idx) != 2 or any(a != b and a >= 0 and b >= 0 for a, b in zip(out, idx)):
        ctx.fail(f"Out {fmt_shape(out)} and Indices {fmt_shape(idx)} must both be [N, k] (top_k's outputs)")
    if len(label) != 2 or label[1] != 1 or (label[0] >= 0 and idx[0] >= 0 and label[0] != idx[0]):
        ctx.fail(f"Label must be [{idx[0]}, 1] (int64 class ids) for the predictions {fmt_shape(idx)}, "
                 f"got {fmt_shape(label)}")
    ctx.set_output("Accuracy", [1], "float32")
    ctx.set_output("Correct", [1], "int32")
    ctx.set_output("Total", [1], "int32")


register("accuracy", kernel_module="metric",
         inputs=["Out", "Indices", "Label"], outputs=["Accuracy", "Correct", "Total"],
         infer=_infer_accuracy, traits=("metric",),
         doc="Correct = rows whose Label is among their top-k Indices; Total = rows; "
             "Accuracy = Correct / Total (float32).")


def _infer_auc(ctx):
    pred, label, a = ctx.shape("Predict"), ctx.shape("Label"), ctx.attrs
    if len(pred) != 2 or pred[1] not in (-1, 1, 2):
        ctx.fail(f"Predict {fmt_shape(pred)} must be [N, 2] (the positive class's probability last) or [N, 1]")
    if label[0] >= 0 and pred[0] >= 0 and label[0] != pred[0]:
        ctx.fail(f"Label {fmt_shape(label)} must have Predict's {pred[0]} rows")
    buckets = a["num_thresholds"] + 1
    want = buckets if a["slide_steps"] == 0 else (a["slide_steps"] + 1) * buckets + 1
    for slot in ("StatPos", "StatNeg"):
        n = 1
        for d in ctx.shape(slot):
            n *= d
        if n != want:
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must hold {want} counts for num_thresholds="
                     f"{a['num_thresholds']} and slide_steps={a['slide_steps']}")
        ctx.set_output(slot + "Out", ctx.shape(slot), "int64")
    ctx.set_output("AUC", [1], "float64")


register("auc", kernel_module="metric", inputs=["Predict", "Label", "StatPos", "StatNeg"],
         outputs=["AUC", "StatPosOut", "StatNegOut"], infer=_infer_auc, traits=("metric",), lod="drop",
         attrs={"curve": Attr("ROC", choices=("ROC", "PR")),
                "num_thresholds": Attr((2 ** 12) - 1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1"),
                "slide_steps": Attr(1, lambda v: isinstance(v, int) and v >= 0, "an int >= 0")},
         doc="The area under the ROC curve of the positive probabilities (Predict's last column) against "
             "Label, from counts per threshold bucket (int(p * num_thresholds)): with slide_steps 0 the "
             "counts StatPos/StatNeg accumulate over every batch; else they hold the last slide_steps "
             "batches' counts, their sum and a batch counter, and the AUC is of that window. StatPosOut and "
             "StatNegOut are the updated counts (the same variables in Fluid's layer).")
