"""Paddle 2.6's message-passing ops (paddle.geometric.send_u_recv, send_ue_recv, send_uv; the older
paddle.incubate.graph_send_recv): messages gathered along the edges (Src_index[i] -> Dst_index[i]) and reduced
into the destination rows.

- graph_send_recv: Out[d] = the SUM / MEAN / MAX / MIN of X[Src_index[i]] over the edges i with Dst_index[i] = d
  (a row without edges: 0); Out has out_size[0] rows (the Out_size tensor's value where given), X's rows where
  that is <= 0.
- graph_send_ue_recv: the message of edge i is X[Src_index[i]] + Y[i] or X[Src_index[i]] * Y[i] (message_op
  ADD / MUL; the row dims broadcast, trailing dims aligned), reduced as graph_send_recv reduces.
- graph_send_uv: out[i] = x[src_index[i]] + / * y[dst_index[i]], one row per edge.

Dst_count: each row's count of edges, int32 (Paddle 2.6.2 writes it only for MEAN, and not with no edges;
pe always does). The gradients are Paddle's: the MEAN's divided by the counts, a MAX / MIN's to every edge
whose message equals the result. Paddle 2.6.2's kernels compute nothing for another reduce_op or message_op
(all zeros): pe refuses them, as it refuses float16 and bool (Paddle's CPU kernels: float32, float64, int32,
int64)."""

from ..kernels.cpu import graph_message_passing as cpu
from ..shapes import graph_message_passing as metas
from .define import Attr, Structured, fmt_shape, register
from .pointwise_math import QUANT

_REDUCE = {"reduce_op": Attr("SUM", choices=("SUM", "MEAN", "MAX", "MIN"))}
_MESSAGE = {"message_op": Attr("ADD", choices=("ADD", "MUL"))}
_SIZE = {"out_size": Attr([0], long=True)}
_DTYPES = ("float32", "float64", "int32", "int64")


def _check_indices(ctx, src, dst):
    shapes = {}
    for slot in (src, dst):
        shape = ctx.shape(slot)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            ctx.fail(f"{slot} {fmt_shape(shape)} must be 1-D, or 2-D of one column")
        if ctx.dtype(slot) not in ("int32", "int64"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; it must be int32 or int64")
        shapes[slot] = shape
    if ctx.dtype(src) != ctx.dtype(dst):
        ctx.fail(f"{src} is {ctx.dtype(src)} and {dst} {ctx.dtype(dst)}; they must be of one dtype")
    a, b = shapes[src][0], shapes[dst][0]
    if a >= 0 and b >= 0 and a != b:
        ctx.fail(f"{src} {fmt_shape(shapes[src])} and {dst} {fmt_shape(shapes[dst])} must hold as many edges")
    return a if a >= 0 else b


def _check_values(ctx, *slots):
    for slot in slots:
        if ctx.dtype(slot) not in _DTYPES:
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; Paddle 2.6.2's CPU kernel takes {', '.join(_DTYPES)}")
    if len(slots) == 2 and ctx.dtype(slots[0]) != ctx.dtype(slots[1]):
        ctx.fail(f"{slots[0]} is {ctx.dtype(slots[0])} and {slots[1]} {ctx.dtype(slots[1])}; they must be of one dtype")


def _rows(ctx, x, y):
    row = metas.row_shape(x[1:], y[1:])
    if row is None:
        ctx.fail(f"the rows of X {fmt_shape(x)} and Y {fmt_shape(y)} do not broadcast")
    return list(row)


def _out_rows(ctx):
    size = int((ctx.attrs.get("out_size") or [0])[0])
    return size if size > 0 and not ctx.has_input("Out_size") else -1


def _infer_send_recv(ctx):
    _check_values(ctx, "X")
    _check_indices(ctx, "Src_index", "Dst_index")
    ctx.set_output("Out", [_out_rows(ctx)] + list(ctx.shape("X")[1:]), ctx.dtype("X"))
    ctx.set_output("Dst_count", [-1], "int32")


def _infer_send_ue_recv(ctx):
    _check_values(ctx, "X", "Y")
    edges = _check_indices(ctx, "Src_index", "Dst_index")
    x, y = ctx.shape("X"), ctx.shape("Y")
    if edges >= 0 and y[0] >= 0 and y[0] != edges:
        ctx.fail(f"Y {fmt_shape(y)} must have one row per edge ({edges})")
    ctx.set_output("Out", [_out_rows(ctx)] + _rows(ctx, x, y), ctx.dtype("X"))
    ctx.set_output("Dst_count", [-1], "int32")


def _infer_send_uv(ctx):
    _check_values(ctx, "x", "y")
    edges = _check_indices(ctx, "src_index", "dst_index")
    ctx.set_output("out", [edges] + _rows(ctx, ctx.shape("x"), ctx.shape("y")), ctx.dtype("x"))


def _infer_grads(pairs):
    def infer(ctx):
        for out, slot in pairs:
            if ctx.has_output(out):
                ctx.set_output(out, ctx.shape(slot), ctx.dtype(slot))

    return infer


def _grad_recv(op, values):
    def grad(g):
        ins = {s: g.input(s) for s in values + ("Src_index", "Dst_index")}
        ins.update(Out=g.output("Out"), Dst_count=g.output("Dst_count"))
        ins["Out@GRAD"] = g.out_grad("Out")
        attrs = {k: v for k, v in g.attrs.items() if k != "out_size"}  # (the grad op's: no out_size)
        g.op(op, ins, {f"{s}@GRAD": g.in_grad(s) for s in values}, attrs)

    return grad


def _grad_uv(g):
    ins = {s: g.input(s) for s in ("x", "y", "src_index", "dst_index")}
    ins["out@GRAD"] = g.out_grad("out")
    g.op("graph_send_uv_grad", ins, {"x@GRAD": g.in_grad("x"), "y@GRAD": g.in_grad("y")}, g.attrs)


register(
    "graph_send_recv",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_recv_meta, cpu=cpu.GRAPH_SEND_RECV),
    inputs=["X", "Src_index", "Dst_index", "Out_size?"],
    outputs=["Out", "Dst_count"],
    attrs={**_REDUCE, **_SIZE, **QUANT},
    attr_tensors={"Out_size": "out_size"},
    infer=_infer_send_recv,
    grad=_grad_recv("graph_send_recv_grad", ("X",)),
    grad_reads=("X", "Src_index", "Dst_index", "Out", "Dst_count"),
    lod="drop",
    doc="Out[d] = the reduce_op (SUM, MEAN, MAX, MIN) of X[Src_index[i]] over the edges i with Dst_index[i] = d.",
)
register(
    "graph_send_recv_grad",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_recv_grad_meta, cpu=cpu.GRAPH_SEND_RECV_GRAD),
    inputs=["X", "Src_index", "Dst_index", "Out?", "Dst_count?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs={**_REDUCE, **QUANT},
    infer=_infer_grads([("X@GRAD", "X")]),
    lod="drop",
)
register(
    "graph_send_ue_recv",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_ue_recv_meta, cpu=cpu.GRAPH_SEND_UE_RECV),
    inputs=["X", "Y", "Src_index", "Dst_index", "Out_size?"],
    outputs=["Out", "Dst_count"],
    attrs={**_MESSAGE, **_REDUCE, **_SIZE, **QUANT},
    attr_tensors={"Out_size": "out_size"},
    infer=_infer_send_ue_recv,
    grad=_grad_recv("graph_send_ue_recv_grad", ("X", "Y")),
    grad_reads=("X", "Y", "Src_index", "Dst_index", "Out", "Dst_count"),
    lod="drop",
    doc="Out[d] = the reduce_op of X[Src_index[i]] message_op (ADD, MUL) Y[i] over the edges i with Dst_index[i] = d.",
)
register(
    "graph_send_ue_recv_grad",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_ue_recv_grad_meta, cpu=cpu.GRAPH_SEND_UE_RECV_GRAD),
    inputs=["X", "Y", "Src_index", "Dst_index", "Out?", "Dst_count?", "Out@GRAD"],
    outputs=["X@GRAD", "Y@GRAD"],
    attrs={**_MESSAGE, **_REDUCE, **QUANT},
    infer=_infer_grads([("X@GRAD", "X"), ("Y@GRAD", "Y")]),
    lod="drop",
)
register(
    "graph_send_uv",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_uv_meta, cpu=cpu.GRAPH_SEND_UV),
    inputs=["x", "y", "src_index", "dst_index"],
    outputs=["out"],
    attrs={**_MESSAGE, **QUANT},
    infer=_infer_send_uv,
    grad=_grad_uv,
    grad_reads=("x", "y", "src_index", "dst_index"),
    lod="drop",
    doc="out[i] = x[src_index[i]] message_op (ADD, MUL) y[dst_index[i]], one row per edge.",
)
register(
    "graph_send_uv_grad",
    kernel_module="graph_message_passing",
    structured=Structured(meta=metas.graph_send_uv_grad_meta, cpu=cpu.GRAPH_SEND_UV_GRAD),
    inputs=["x", "y", "src_index", "dst_index", "out@GRAD"],
    outputs=["x@GRAD", "y@GRAD"],
    attrs={**_MESSAGE, **QUANT},
    infer=_infer_grads([("x@GRAD", "x"), ("y@GRAD", "y")]),
    lod="drop",
)
