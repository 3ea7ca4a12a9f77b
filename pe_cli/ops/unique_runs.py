"""unique_consecutive (paddle.unique_consecutive; op version 1): X with each run of equal consecutive elements
(of X flattened, or of slices along axis) kept once; Index maps each element (slice) to its run, Counts gives
each run's length, both of `dtype` (a VarType code)."""

from ..base.dtypes import convert_dtype
from ..kernels.cpu import unique_runs as cpu_unique_runs
from ..shapes.indexing import unique_consecutive_meta
from .define import Attr, Structured, fmt_shape, int_list, register
from .pointwise_math import QUANT


def _infer(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if len(a["axis"]) > 1:
        ctx.fail(f"axis={list(a['axis'])}: one axis at most")
    dtype = convert_dtype(a["dtype"])
    if a["axis"] and not -len(x) <= a["axis"][0] < len(x):
        ctx.fail(f"axis={list(a['axis'])} is no axis of X {fmt_shape(x)}")
    if a["axis"]:
        axis = a["axis"][0] % len(x)
        ctx.set_output("Out", [-1 if i == axis else d for i, d in enumerate(x)], ctx.dtype("X"))
        ctx.set_output("Index", [x[axis]], dtype)
    else:
        ctx.set_output("Out", [-1], ctx.dtype("X"))
        n = 1
        for d in x:
            n = n * d if d >= 0 and n >= 0 else -1
        ctx.set_output("Index", [n], dtype)
    ctx.set_output("Counts", [-1], dtype)


register(
    "unique_consecutive",
    kernel_module="unique_runs",
    structured=Structured(meta=unique_consecutive_meta, cpu=cpu_unique_runs.UNIQUE_CONSECUTIVE),
    inputs=["X"],
    outputs=["Out", "Index?", "Counts?"],
    lod="drop",
    infer=_infer,
    traits=("optional_outputs",),
    attrs={
        "return_inverse": Attr(False, choices=(False, True)),
        "return_counts": Attr(False, choices=(False, True)),
        "axis": Attr(list, int_list, "a list of at most one int"),
        "dtype": Attr(5, lambda v: convert_dtype(v) in ("int32", "int64"), "int32 or int64 (a VarType code)"),
        **QUANT,
    },
    doc="Out = X (flattened, or along axis) with each run of equal consecutive elements (slices) kept once; "
    "Index: each one's run; Counts: each run's length.",
)
