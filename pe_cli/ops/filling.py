"""Paddle 2.x's creation ops, under Paddle 2.6's op types: fill_any (X's shape, every element `value`; no
gradient flows to X), empty (a tensor of `shape` and `dtype` whose values are not meant to be read: pe gives
zeros), full_int_array (the ints of `value`), tril_indices / triu_indices (the [2, count] row and column
indices of a rows x cols matrix's lower / upper triangle from diagonal `offset`) and logspace (Num numbers
Base^t for t evenly from Start to Stop, each a 1-element tensor). ``dtype`` attributes are Paddle's VarType codes."""

from ..base.dtypes import convert_dtype
from ..kernels.cpu import filling as cpu_filling
from ..shapes import filling as metas
from ..shapes.filling import triangle_count
from ..shapes.structured import Structured
from .define import Attr, dtype_code, grad_of, int_list, is_int, register
from .pointwise_math import QUANT


def _dtype_attr(default):
    return Attr(default, dtype_code, "a dtype (Paddle's VarType code)")


register(
    "fill_any",
    kernel_module="filling",
    structured=Structured(meta=metas.like_meta, cpu=cpu_filling.fill_any_out),
    inputs=["X"],
    outputs=["Out"],
    attrs={"value": Attr(0.0), **QUANT},
    infer=lambda ctx: ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X")),
    grad=grad_of("fill_any_grad", ()),
    no_need_buffer=("X",),
    doc="Out = X's shape and dtype, every element `value` (its gradient to X: zeros).",
)
register(
    "fill_any_grad",
    kernel_module="filling",
    structured=Structured(meta=metas.like_meta, cpu=cpu_filling.fill_any_grad_out),
    inputs=["Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={"value": Attr(0.0), **QUANT},
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
)


def _infer_empty(ctx):
    if ctx.has_input("ShapeTensor") or ctx.has_input("ShapeTensorList"):
        n = (
            ctx.num_inputs("ShapeTensorList")
            if ctx.has_input("ShapeTensorList")
            else (ctx.shape("ShapeTensor") or [1])[0]
        )
        ctx.set_output("Out", [-1] * max(n, 0), convert_dtype(ctx.attrs["dtype"]))
        return
    ctx.set_output("Out", ctx.attrs["shape"], convert_dtype(ctx.attrs["dtype"]))


register(
    "empty",
    kernel_module="filling",
    structured=Structured(meta=metas.empty_meta, cpu=cpu_filling.empty_out),
    inputs=["ShapeTensor?", "ShapeTensorList*?"],
    outputs=["Out"],
    attrs={"shape": Attr(list, int_list, "a list of ints", long=True), "dtype": _dtype_attr(5), **QUANT},
    infer=_infer_empty,
    attr_tensors={"ShapeTensor": "shape", "ShapeTensorList": "shape"},
    lod="drop",
    doc="Out = a tensor of `shape` (ShapeTensor, ShapeTensorList at run time) and `dtype` whose values are "
    "not meant to be read (Paddle leaves memory as it was; pe gives zeros).",
)

register(
    "full_int_array",
    kernel_module="filling",
    structured=Structured(meta=metas.full_int_array_meta, cpu=cpu_filling.full_int_array_out),
    inputs=[],
    outputs=["out"],
    lod="drop",
    attrs={
        "value": Attr(list, int_list, "a list of ints", long=True),
        "dtype": _dtype_attr(5),
        "place": Attr(1, is_int, "an int"),
        **QUANT,
    },
    infer=lambda ctx: ctx.set_output("out", [len(ctx.attrs["value"])], convert_dtype(ctx.attrs["dtype"])),
    doc="out = the list `value` as a 1-D tensor of `dtype` (`place` is where Paddle puts it: pe's executor places it).",
)


def _indices(name, rows, cols, upper, meta):
    def infer(ctx):
        a = ctx.attrs
        ctx.set_output("out", [2, triangle_count(a[rows], a[cols], a["offset"], upper)], convert_dtype(a["dtype"]))

    register(
        name,
        kernel_module="filling",
        structured=Structured(meta=meta, cpu=cpu_filling.triangle_out),
        inputs=[],
        outputs=["out"],
        infer=infer,
        lod="drop",
        attrs={
            rows: Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"),
            cols: Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"),
            "offset": Attr(0, is_int, "an int"),
            "dtype": _dtype_attr(3),
            **QUANT,
        },
        doc=f"out = [row indices, column indices] of the {'upper' if upper else 'lower'} triangle of a {rows} x "
        f"{cols} matrix from diagonal `offset` on, row by row.",
    )


_indices("tril_indices", "rows", "cols", False, metas.TRIL_INDICES)
_indices("triu_indices", "row", "col", True, metas.TRIU_INDICES)

register(
    "logspace",
    kernel_module="filling",
    structured=Structured(meta=metas.logspace_meta, cpu=cpu_filling.logspace_out),
    inputs=["Start", "Stop", "Num", "Base"],
    outputs=["Out"],
    lod="drop",
    attrs={"dtype": _dtype_attr(5), **QUANT},
    infer=lambda ctx: ctx.set_output("Out", [-1], convert_dtype(ctx.attrs["dtype"])),
    doc="Out = Base ** t for Num values t evenly spaced from Start to Stop (Paddle's halves: the first half "
    "stepped from Start, the rest back from Stop), of `dtype`.",
)
