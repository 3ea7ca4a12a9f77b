"""Metric ops: top_k, arg_max/arg_min and accuracy. None of them has a gradient."""
from .define import Attr, fmt_shape, register


def _infer_top_k(ctx):
    x = ctx.shape("X")
    k = ctx.attrs["k"]
    if x is None or len(x) < 1:
        ctx.fail(f"X {fmt_shape(x)} needs at least one dim to take the top {k} of")
    if x[-1] is not None and x[-1] >= 0 and k > x[-1]:
        ctx.fail(f"k={k} is larger than the last dim of X {fmt_shape(x)}")
    out = list(x[:-1]) + [k]
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("Indices", out, "int64", lod_level=ctx.input_var("X").lod_level)


register("top_k", kernel_module="metric", inputs=["X"], outputs=["Out", "Indices"],
         attrs={"k": Attr(1, lambda v: isinstance(v, int) and v >= 1, "an int >= 1")}, infer=_infer_top_k,
         doc="The k largest values along the last dim (Out, in descending order) and their int64 "
             "Indices; equal values keep their order.")


def _infer_arg(ctx):
    x = ctx.shape("X")
    a = ctx.attrs
    if a["flatten"]:
        ctx.set_output("Out", [1], "int64")
        return
    axis = a["axis"]
    if not -len(x) <= axis < len(x):
        ctx.fail(f"axis={axis} is out of range for X {fmt_shape(x)}")
    axis %= len(x)
    if a["keepdims"]:
        out = [1 if i == axis else d for i, d in enumerate(x)]
    else:
        out = [d for i, d in enumerate(x) if i != axis] or [1]
    ctx.set_output("Out", out, "int64")


for _name, _doc in (("arg_max", "largest"), ("arg_min", "smallest")):
    register(_name, kernel_module="metric", inputs=["X"], outputs=["Out"],
             attrs={"axis": Attr(0, lambda v: isinstance(v, int), "an int"), "keepdims": False, "flatten": False,
                    "dtype": Attr(-1, lambda v: v in (-1, 3, "int64"), "-1 or int64 (3)")},
             infer=_infer_arg, doc=f"Out = int64 index of the {_doc} value along `axis` (the first one on ties).")


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
