"""flatten_contiguous_range, Paddle 2.x's flatten (what paddle.flatten and nn.Flatten save): the dims
start_axis..stop_axis (negative: from the end) merged into one, XShape holding X's shape; a reshape, its
Out a view of X where X is C-contiguous (shapes/reshaping.flatten_range_meta, kernels/<device>/flattening.py),
its grad op reshape_grad's (manipulation)."""

from ..base.broadcast_shapes import flattened_shape
from ..kernels.cpu import flattening as cpu_flattening
from ..shapes import reshaping
from .define import Attr, Structured, fmt_shape, is_int, register
from .pointwise_math import QUANT


def _infer_flatten(ctx):
    x = ctx.shape("X")
    out = flattened_shape(x, ctx.attrs)
    if out is None:
        ctx.fail(
            f"start_axis={ctx.attrs['start_axis']}, stop_axis={ctx.attrs['stop_axis']} are not axes of X "
            f"{fmt_shape(x)} with start_axis <= stop_axis"
        )
    ctx.set_output("Out", out, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("XShape", [0] + list(x), ctx.dtype("X"))


def _grad_flatten(g):
    g.op(
        "flatten_contiguous_range_grad",
        {"XShape": g.output("XShape"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


def _infer_reshape_grad(ctx):
    like = ctx.input_var("XShape")
    ctx.set_output("X@GRAD", like.shape[1:] if like.shape is not None else None, like.dtype)


_FLATTEN_ATTRS = {"start_axis": Attr(1, is_int, "an int"), "stop_axis": Attr(1, is_int, "an int"), **QUANT}
register(
    "flatten_contiguous_range",
    kernel_module="flattening",
    inputs=["X"],
    outputs=["Out", "XShape"],
    attrs=_FLATTEN_ATTRS,
    infer=_infer_flatten,
    grad=_grad_flatten,
    grad_reads=("XShape",),
    structured=Structured(meta=reshaping.flatten_range_meta, cpu=cpu_flattening.flatten_contiguous_range_out),
    doc="Out = X with the dims start_axis..stop_axis (negative: from the end) merged into one; XShape is "
    "X's shape behind a 0, holding no data (a 0-D X flattens to [1]).",
)
register(
    "flatten_contiguous_range_grad",
    kernel_module="manipulation",
    kernel="reshape_grad",
    inputs=["XShape", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_FLATTEN_ATTRS,
    infer=_infer_reshape_grad,
    structured=Structured(meta=reshaping.reshape_grad_meta, cpu=cpu_flattening.flatten_contiguous_range_out),
)
