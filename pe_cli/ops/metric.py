"""Metric ops: top_k, arg_max/arg_min and accuracy. None of them has a gradient."""
from .registry import Attr, fmt_shape, register


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
