"""segment_pool (paddle.incubate.segment_sum / mean / max / min, paddle.geometric.segment_*): the rows of X
pooled by sorted SegmentIds into max(SegmentIds) + 1 rows (a segment without rows: 0). SummedIds: each
segment's row count (MEAN). The gradient: Out@GRAD back to each row (MEAN: divided by the count; MAX / MIN: to
every row equal to the segment's result)."""

from ..kernels.cpu import segment_pooling as cpu_segment_pooling
from ..shapes.segment_pooling import segment_pool_grad_meta, segment_pool_meta
from .define import Attr, Structured, fmt_shape, grads_like, register
from .pointwise_math import QUANT

_ATTRS = {"pooltype": Attr("SUM", choices=("SUM", "MEAN", "MAX", "MIN")), **QUANT}


def _infer(ctx):
    x, ids = ctx.shape("X"), ctx.shape("SegmentIds")
    if len(ids) != 1 or (ids[0] >= 0 and x[0] >= 0 and ids[0] != x[0]):
        ctx.fail(f"SegmentIds {fmt_shape(ids)} must be 1-D, one id per row of X {fmt_shape(x)}")
    ctx.set_output("Out", [-1] + list(x[1:]), ctx.dtype("X"))
    ctx.set_output("SummedIds", [-1, 1], ctx.dtype("X"))


def _grad(g):
    g.op(
        "segment_pool_grad",
        {"X": g.input("X"), "SegmentIds": g.input("SegmentIds"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "segment_pool",
    kernel_module="segment_pooling",
    structured=Structured(meta=segment_pool_meta, cpu=cpu_segment_pooling.SEGMENT_POOL),
    inputs=["X", "SegmentIds"],
    outputs=["Out", "SummedIds"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("X", "SegmentIds", "Out"),
    lod="drop",
    doc="Out[s] = the SUM / MEAN / MAX / MIN of the rows of X whose SegmentIds is s (sorted ids; an empty "
    "segment: 0); SummedIds[s] = how many rows s has.",
)
register(
    "segment_pool_grad",
    kernel_module="segment_pooling",
    structured=Structured(meta=segment_pool_grad_meta, cpu=cpu_segment_pooling.SEGMENT_POOL_GRAD),
    inputs=["X", "SegmentIds", "Out", "SummedIds?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    lod="drop",
)
