"""Comparisons (less_than, less_equal, greater_than, greater_equal, equal, not_equal) and logical
ops (logical_and, logical_or, logical_xor, logical_not): elementwise, bool results."""
from .define import fmt_shape, register


def _infer_compare(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(y) > len(x):
        ctx.fail(f"Y {fmt_shape(y)} has more dimensions than X {fmt_shape(x)}")
    ctx.set_output("Out", x, "bool")


for _type, _sign in (("less_than", "<"), ("less_equal", "<="), ("greater_than", ">"),
                     ("greater_equal", ">="), ("equal", "=="), ("not_equal", "!=")):
    register(_type, kernel_module="logic", inputs=["X", "Y"], outputs=["Out"], lod="drop",
             attrs={"axis": -1, "force_cpu": False}, infer=_infer_compare,
             doc=f"Out = X {_sign} Y elementwise (bool); Y broadcasts as in elementwise ops.")


def _infer_logical(ctx):
    ctx.set_output("Out", ctx.shape("X"), "bool")


register("logical_not", kernel_module="logic", inputs=["X"], outputs=["Out"], infer=_infer_logical,
         doc="Out = not X (bool).")
for _type in ("logical_and", "logical_or", "logical_xor"):
    register(_type, kernel_module="logic", inputs=["X", "Y"], outputs=["Out"], infer=_infer_logical,
             doc=f"Out = X {_type[8:]} Y elementwise (bool).")
