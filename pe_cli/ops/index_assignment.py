"""index_put (paddle.index_put): out = x with the elements `indices` pick (one int64/int32 tensor per leading
dim, broadcast together, or one bool mask) set to `value` (broadcast to them), or added to them with
accumulate (duplicates adding up). The gradient: out@GRAD to x (the set places zeroed without accumulate), the
picked places summed back to value's shape to value."""

from ..kernels.cpu import index_assignment as cpu
from ..shapes import indexing_axis as metas
from .define import Attr, Structured, grads_like, register
from .pointwise_math import QUANT

_ATTRS = {"accumulate": Attr(False, choices=(False, True)), **QUANT}


def _infer(ctx):
    if ctx.num_inputs("indices") > len(ctx.shape("x")):
        ctx.fail(f"{ctx.num_inputs('indices')} index tensors for x of rank {len(ctx.shape('x'))}")
    ctx.set_output("out", ctx.shape("x"), ctx.dtype("x"))


def _grad(g):
    g.op(
        "index_put_grad",
        {"x": g.input("x"), "indices": g.input("indices"), "value": g.input("value"), "out@GRAD": g.out_grad("out")},
        {"x@GRAD": g.in_grad("x"), "value@GRAD": g.in_grad("value")},
        g.attrs,
    )


register(
    "index_put",
    kernel_module="index_assignment",
    structured=Structured(meta=metas.index_put_meta, cpu=cpu.INDEX_PUT),
    inputs=["x", "indices*", "value"],
    outputs=["out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("x", "indices", "value"),
    lod="drop",
    doc="out = x with x[indices] = value (accumulate: += value, duplicates adding up).",
)
register(
    "index_put_grad",
    kernel_module="index_assignment",
    structured=Structured(meta=metas.index_put_grad_meta, cpu=cpu.INDEX_PUT_GRAD),
    inputs=["x", "indices*", "value", "out@GRAD"],
    outputs=["x@GRAD?", "value@GRAD?"],
    attrs=_ATTRS,
    lod="drop",
    no_need_buffer=("x",),
    infer=grads_like({"x@GRAD": "x", "value@GRAD": "value"}),
)
