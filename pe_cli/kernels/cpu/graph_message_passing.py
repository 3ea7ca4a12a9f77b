"""Kernels of pe_cli/ops/graph_message_passing.py (numpy): the out-kernels of shapes/graph_message_passing.py's
meta rules (fresh), as Paddle 2.6.2's CPU kernels compute them: edges taken in order (np.add.at sums them in
that order, as Paddle's loop does), a MEAN the sum divided by the row's count (integers: toward zero), a MAX /
MIN row without edges 0, its gradient to every edge whose message equals the result. An index outside the
rows it indexes is refused in one line (Paddle's graph_send_recv raises OutOfRangeError; its other two read
and write out of bounds)."""

import numpy as np

from ...base.errors import PeError
from ...shapes.graph_message_passing import (
    graph_send_recv_grad_meta,
    graph_send_recv_meta,
    graph_send_ue_recv_grad_meta,
    graph_send_ue_recv_meta,
    graph_send_uv_grad_meta,
    graph_send_uv_meta,
    out_rows,
)
from ..structured import adapter, fresh_kernel
from ._int_division import truncated_div
from .elementwise_binary import unbroadcast


def _indices(op, ins, src, dst):
    """The two index tensors as int64 vectors ([E] or [E, 1]), of one dtype as Paddle's kernel reads them."""
    s, d = np.asarray(ins[src]), np.asarray(ins[dst])
    if s.dtype != d.dtype:
        raise PeError(f"{op}: {src} is {s.dtype} and {dst} {d.dtype}; Paddle 2.6.2 takes both of one dtype")
    return s.reshape(-1).astype(np.int64, copy=False), d.reshape(-1).astype(np.int64, copy=False)


def _within(op, slot, index, rows, what):
    if index.size and (index.min() < 0 or index.max() >= rows):
        bad = int(index[(index < 0) | (index >= rows)][0])
        raise PeError(f"{op}: {slot} holds {bad}, outside [0, {rows}) ({what})")


def _padded(a, rows, n):
    """``a`` [rows, ...] with 1s after its first dim up to ``n`` row dims (Paddle's trailing alignment)."""
    return a.reshape((rows,) + (1,) * (n - (a.ndim - 1)) + a.shape[1:])


def _message(x, y, kind):
    """X's and Y's rows (one per edge) combined, their row dims broadcast."""
    n = max(x.ndim, y.ndim) - 1
    x, y = _padded(x, x.shape[0], n), _padded(y, y.shape[0], n)
    return x + y if kind == "ADD" else x * y


def _per_row(counts, ndim):
    return counts.reshape((-1,) + (1,) * (ndim - 1))


def _received(msg, dst, rows, kind):
    """(Out, Dst_count): the messages reduced into ``rows`` rows by ``dst``."""
    counts = np.bincount(dst, minlength=rows)[:rows]
    out = np.zeros((rows,) + msg.shape[1:], msg.dtype)
    if kind in ("SUM", "MEAN"):
        np.add.at(out, dst, msg)
        if kind == "MEAN":
            n = _per_row(np.maximum(counts, 1), out.ndim).astype(out.dtype)
            out = truncated_div(out, n) if out.dtype.kind in "iu" else out / n
    else:
        ints = msg.dtype.kind in "iu"
        big = np.iinfo(msg.dtype).max if ints else np.inf
        out[:] = -big - (1 if ints else 0) if kind == "MAX" else big
        (np.maximum if kind == "MAX" else np.minimum).at(out, dst, msg)
        out[counts == 0] = 0
    return {"Out": out, "Dst_count": counts.astype(np.int32)}


def _graph_send_recv(ins, attrs):
    op, x = "graph_send_recv", np.asarray(ins["X"])
    src, dst = _indices(op, ins, "Src_index", "Dst_index")
    rows = out_rows(attrs, {"X": x})  # (the Out_size tensor's value is in attrs: kernels/tensor_attrs.py)
    _within(op, "Src_index", src, x.shape[0], "X's rows")
    _within(op, "Dst_index", dst, rows, "Out's rows")
    return _received(x[src], dst, rows, attrs["reduce_op"])


def _graph_send_ue_recv(ins, attrs):
    op, x, y = "graph_send_ue_recv", np.asarray(ins["X"]), np.asarray(ins["Y"])
    src, dst = _indices(op, ins, "Src_index", "Dst_index")
    if y.shape[0] != src.size:
        raise PeError(f"{op}: Y has {y.shape[0]} rows; it must have one per edge ({src.size})")
    rows = out_rows(attrs, {"X": x})
    _within(op, "Src_index", src, x.shape[0], "X's rows")
    _within(op, "Dst_index", dst, rows, "Out's rows")
    return _received(_message(x[src], y, attrs["message_op"]), dst, rows, attrs["reduce_op"])


def _graph_send_uv(ins, attrs):
    op, x, y = "graph_send_uv", np.asarray(ins["x"]), np.asarray(ins["y"])
    src, dst = _indices(op, ins, "src_index", "dst_index")
    if not src.size:
        raise PeError(f"{op}: src_index and dst_index hold no edge; Paddle 2.6.2 needs at least one")
    _within(op, "src_index", src, x.shape[0], "x's rows")
    _within(op, "dst_index", dst, y.shape[0], "y's rows")
    return {"out": _message(x[src], y[dst], attrs["message_op"])}


def _scatter_rows(shape, dtype, index, rows_grad):
    out = np.zeros(shape, dtype)
    np.add.at(out, index, rows_grad.reshape((rows_grad.shape[0],) + tuple(shape[1:])))
    return out


def _to_rows(g, a):
    """``g`` [E, broadcast row] summed to ``a``'s row shape [E, a's row dims]."""
    n = g.ndim - 1
    return unbroadcast(g, (g.shape[0],) + (1,) * (n - (a.ndim - 1)) + a.shape[1:])


def _edge_grads(ins, attrs, x_rows, y_rows, dst, reduced_by):
    """(the message's gradient through X's rows, through Y's rows), one per edge: Out@GRAD's row of each
    edge's destination (MEAN: over its count; MAX / MIN: where the message is the result), times the other
    operand where the message is a product."""
    dout = np.asarray(ins["Out@GRAD"])
    kind, mul = attrs["reduce_op"], attrs["message_op"] == "MUL"
    g = dout[dst]
    msg = _message(x_rows, y_rows, attrs["message_op"])
    if kind in ("MAX", "MIN"):
        g = g * (msg == np.asarray(ins["Out"])[dst])
    gx, gy = (
        (g * _padded(y_rows, y_rows.shape[0], g.ndim - 1), g * _padded(x_rows, x_rows.shape[0], g.ndim - 1))
        if mul
        else (g, g)
    )
    if kind == "MEAN":
        n = _per_row(reduced_by[dst], g.ndim).astype(g.dtype)
        gx, gy = gx / n, gy / n
    return _to_rows(gx, x_rows), _to_rows(gy, y_rows)


def _graph_send_recv_grad(ins, attrs):
    x, dout = np.asarray(ins["X"]), np.asarray(ins["Out@GRAD"])
    src, dst = _indices("graph_send_recv_grad", ins, "Src_index", "Dst_index")
    g = dout[dst]
    kind = attrs["reduce_op"]
    if kind == "MEAN":
        g = g / _per_row(np.bincount(dst, minlength=dout.shape[0]), g.ndim).astype(g.dtype)[dst]
    elif kind in ("MAX", "MIN"):
        g = g * (x[src] == np.asarray(ins["Out"])[dst])
    return {"X@GRAD": _scatter_rows(x.shape, x.dtype, src, g)}


def _graph_send_ue_recv_grad(ins, attrs):
    x, y = np.asarray(ins["X"]), np.asarray(ins["Y"])
    src, dst = _indices("graph_send_ue_recv_grad", ins, "Src_index", "Dst_index")
    counts = np.bincount(dst, minlength=np.asarray(ins["Out@GRAD"]).shape[0])
    gx, gy = _edge_grads(ins, attrs, x[src], y, dst, counts)
    return {"X@GRAD": _scatter_rows(x.shape, x.dtype, src, gx), "Y@GRAD": gy.reshape(y.shape).astype(y.dtype)}


def _graph_send_uv_grad(ins, attrs):
    x, y, dout = np.asarray(ins["x"]), np.asarray(ins["y"]), np.asarray(ins["out@GRAD"])
    src, dst = _indices("graph_send_uv_grad", ins, "src_index", "dst_index")
    xs, ys = x[src], y[dst]
    if attrs["message_op"] == "MUL":
        gx, gy = dout * _padded(ys, ys.shape[0], dout.ndim - 1), dout * _padded(xs, xs.shape[0], dout.ndim - 1)
    else:
        gx = gy = dout
    return {
        "x@GRAD": _scatter_rows(x.shape, x.dtype, src, _to_rows(gx, xs)),
        "y@GRAD": _scatter_rows(y.shape, y.dtype, dst, _to_rows(gy, ys)),
    }


GRAPH_SEND_RECV = fresh_kernel(_graph_send_recv, "graph_send_recv_out")
GRAPH_SEND_UE_RECV = fresh_kernel(_graph_send_ue_recv, "graph_send_ue_recv_out")
GRAPH_SEND_UV = fresh_kernel(_graph_send_uv, "graph_send_uv_out")
GRAPH_SEND_RECV_GRAD = fresh_kernel(_graph_send_recv_grad, "graph_send_recv_grad_out")
GRAPH_SEND_UE_RECV_GRAD = fresh_kernel(_graph_send_ue_recv_grad, "graph_send_ue_recv_grad_out")
GRAPH_SEND_UV_GRAD = fresh_kernel(_graph_send_uv_grad, "graph_send_uv_grad_out")
graph_send_recv = adapter(graph_send_recv_meta, GRAPH_SEND_RECV, "graph_send_recv")
graph_send_ue_recv = adapter(graph_send_ue_recv_meta, GRAPH_SEND_UE_RECV, "graph_send_ue_recv")
graph_send_uv = adapter(graph_send_uv_meta, GRAPH_SEND_UV, "graph_send_uv")
graph_send_recv_grad = adapter(graph_send_recv_grad_meta, GRAPH_SEND_RECV_GRAD, "graph_send_recv_grad")
graph_send_ue_recv_grad = adapter(graph_send_ue_recv_grad_meta, GRAPH_SEND_UE_RECV_GRAD, "graph_send_ue_recv_grad")
graph_send_uv_grad = adapter(graph_send_uv_grad_meta, GRAPH_SEND_UV_GRAD, "graph_send_uv_grad")
