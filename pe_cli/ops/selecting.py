"""Paddle 2.x's selections, under Paddle 2.6's op types: top_k_v2 (the k largest or smallest along any axis,
sorted, equal values ordered as Paddle's CPU kernel orders them; K gives k at run time) and masked_select (the elements of X where Mask, X and
Mask broadcast together, as one 1-D tensor). Their gradients put Out@GRAD back where the values came from."""

from ..base.broadcast_shapes import broadcast
from ..kernels.cpu import selecting as cpu_selecting
from ..shapes import indexing as meta_rules
from .define import Attr, Structured, fmt_shape, grads_like, is_int, register
from .pointwise_math import QUANT


def _infer_top_k_v2(ctx):
    x, a = list(ctx.shape("X")), ctx.attrs
    rank = max(len(x), 1)
    if not -rank <= a["axis"] < rank:
        ctx.fail(f"axis={a['axis']} is out of range for X {fmt_shape(x)}")
    axis = a["axis"] % rank
    out = list(x) or [1]
    k = -1 if ctx.has_input("K") else a["k"]
    if x and not ctx.has_input("K") and out[axis] >= 0 and not 0 <= k <= out[axis]:  # (a 0-D X: itself, any k)
        ctx.fail(f"k={k} must lie in [0, {out[axis]}] (X {fmt_shape(x)} along axis {axis})")
    if x:
        out[axis] = k
    ctx.set_output("Out", out if x else [], ctx.dtype("X"))
    ctx.set_output("Indices", out if x else [], "int64")


def _grad_top_k_v2(g):
    g.op(
        "top_k_v2_grad",
        {"X": g.input("X"), "Indices": g.output("Indices"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_TOP_K_ATTRS = {
    "k": Attr(1, lambda v: is_int(v) and v >= 0, "an int >= 0"),
    "axis": Attr(-1, is_int, "an int"),
    "largest": Attr(True, choices=(True, False)),
    "sorted": Attr(True, choices=(True, False)),  # unsorted: the k in nth_element's order (Paddle's CPU kernel)
    **QUANT,
}
register(
    "top_k_v2",
    kernel_module="selecting",
    inputs=["X", "K?"],
    outputs=["Out", "Indices"],
    lod="drop",
    attrs=_TOP_K_ATTRS,
    infer=_infer_top_k_v2,
    grad=_grad_top_k_v2,
    grad_reads=("X", "Indices"),
    attr_tensors={"K": "k"},
    structured=Structured(meta=meta_rules.top_k_v2_meta, cpu=cpu_selecting.TOP_K_V2),
    doc="Out, Indices = the k largest (smallest: largest=False) elements of X along `axis` and where they "
    "lie (int64), sorted, equal values in the order of Paddle's CPU kernel (its std::partial_sort); K (an int tensor) gives k at run time. "
    "sorted=False: where k * 64 reaches the row's length, the k in the order std::nth_element leaves them.",
)
register(
    "top_k_v2_grad",
    kernel_module="selecting",
    inputs=["X", "Indices", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_TOP_K_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
    structured=Structured(meta=meta_rules.top_k_grad_meta, cpu=cpu_selecting.TOP_K_V2_GRAD),
)


def _infer_masked_select(ctx):
    x, m = ctx.shape("X"), ctx.shape("Mask")
    if ctx.dtype("Mask") != "bool":
        ctx.fail(f"Mask is {ctx.dtype('Mask')}; it must be bool")
    if broadcast([x, m]) is None:
        ctx.fail(f"X {fmt_shape(x)} and Mask {fmt_shape(m)} cannot broadcast")
    ctx.set_output("Y", [-1], ctx.dtype("X"))


def _grad_masked_select(g):
    g.op(
        "masked_select_grad",
        {"X": g.input("X"), "Mask": g.input("Mask"), "Y@GRAD": g.out_grad("Y")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


register(
    "masked_select",
    kernel_module="selecting",
    structured=Structured(meta=meta_rules.masked_select_meta, cpu=cpu_selecting.MASKED_SELECT),
    inputs=["X", "Mask"],
    outputs=["Y"],
    attrs=dict(QUANT),
    lod="drop",
    infer=_infer_masked_select,
    grad=_grad_masked_select,
    grad_reads=("X", "Mask"),
    doc="Y = the elements of X where Mask is true, in order, as one 1-D tensor (X and Mask broadcast together).",
)
register(
    "masked_select_grad",
    kernel_module="selecting",
    structured=Structured(meta=meta_rules.masked_select_grad_meta, cpu=cpu_selecting.MASKED_SELECT_GRAD),
    inputs=["X", "Mask", "Y@GRAD"],
    outputs=["X@GRAD"],
    attrs=dict(QUANT),
    infer=grads_like({"X@GRAD": "X"}),
    no_need_buffer=("X",),
)
