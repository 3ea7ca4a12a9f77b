"""check_numerics (Paddle 2.x's FLAGS_check_nan_inf, as an op): stats [3] int64 = X's NaN, inf and zero
counts; values [3] float32 = its max and min over the elements but NaN, and its mean (NaN where it holds one). check_nan_inf_level 0 stops the
run on a NaN or inf (naming op_type and var_name), the other levels only count; output_dir (Paddle's log
files) is refused."""

from ..kernels.cpu import numerics as cpu_numerics
from ..shapes.numerics import check_numerics_meta
from .define import Attr, Structured, is_int, register
from .pointwise_math import QUANT


def _infer(ctx):
    ctx.set_output("stats", [3], "int64")
    ctx.set_output("values", [3], "float32")


register(
    "check_numerics",
    kernel_module="numerics",
    structured=Structured(meta=check_numerics_meta, cpu=cpu_numerics.CHECK_NUMERICS),
    inputs=["tensor"],
    outputs=["stats", "values"],
    lod="drop",
    attrs={
        "op_type": Attr(""),
        "var_name": Attr(""),
        "check_nan_inf_level": Attr(0, is_int, "an int"),
        "stack_height_limit": Attr(-1, is_int, "an int"),
        "output_dir": Attr("", choices=("",)),
        **QUANT,
    },
    infer=_infer,
    doc="stats = [NaN count, inf count, zero count] of tensor; values = [max, min] of its elements but NaN "
    "and their mean (as Paddle's); level 0 stops the run where it holds a NaN or inf.",
)
