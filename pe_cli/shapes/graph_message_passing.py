"""The meta rules of Paddle 2.6's message-passing ops (ops/graph_message_passing.py: graph_send_recv,
graph_send_ue_recv, graph_send_uv and their gradients), ``fresh`` variants ("numpy": the arrays the numpy forms
in kernels/<device>/graph_message_passing.py made, handed over).

graph_send_recv's and graph_send_ue_recv's Out has ``out_size[0]`` rows (X's rows where that is <= 0; -1 where
the Out_size tensor gives it: its values, not its shape, decide), each row X's row shape (graph_send_ue_recv:
X's and Y's row shapes broadcast, trailing dims aligned, as Paddle's GetBroadcastDimsArrays aligns them), X's
dtype; Dst_count int32, one count per row of Out. graph_send_uv's out one row per edge. The gradients: X's and
Y's shapes and dtypes."""

import numpy as np

from .structured import Meta


def row_shape(x_rows, y_rows):
    """The broadcast of two row shapes (each without its first dim), trailing dims aligned, -1 unknown; None
    where they do not broadcast."""
    n = max(len(x_rows), len(y_rows))
    a = (1,) * (n - len(x_rows)) + tuple(x_rows)
    b = (1,) * (n - len(y_rows)) + tuple(y_rows)
    out = []
    for m, k in zip(a, b):
        if m != k and 1 not in (m, k) and m >= 0 and k >= 0:
            return None
        out.append(-1 if -1 in (m, k) and 1 in (m, k) else max(m, k))
    return tuple(out)


def out_rows(attrs, ins):
    """Out's rows: out_size[0], or X's rows where that is <= 0; -1 where the Out_size tensor gives it."""
    if ins.get("Out_size") is not None:
        return -1
    size = int((attrs.get("out_size") or [0])[0])
    return size if size > 0 else int(ins["X"].shape[0])


def _received(rows, row, dtype):
    return {"Out": ((rows,) + tuple(row), np.dtype(dtype)), "Dst_count": ((rows,), np.dtype(np.int32))}


def graph_send_recv_meta(attrs, ins, facts):
    """graph_send_recv's Out [rows, X's row shape] and Dst_count [rows]."""
    x = ins["X"]
    return Meta(_received(out_rows(attrs, ins), tuple(x.shape)[1:], x.dtype), "numpy", fresh=True)


def graph_send_ue_recv_meta(attrs, ins, facts):
    """graph_send_ue_recv's Out [rows, X's and Y's row shapes broadcast] and Dst_count [rows]."""
    x, y = ins["X"], ins["Y"]
    row = row_shape(tuple(x.shape)[1:], tuple(y.shape)[1:])
    return Meta(_received(out_rows(attrs, ins), row, x.dtype), "numpy", fresh=True)


def graph_send_uv_meta(attrs, ins, facts):
    """graph_send_uv's out [edges, x's and y's row shapes broadcast]."""
    x, y = ins["x"], ins["y"]
    row = row_shape(tuple(x.shape)[1:], tuple(y.shape)[1:])
    return Meta({"out": ((int(ins["src_index"].shape[0]),) + row, np.dtype(x.dtype))}, "numpy", fresh=True)


def _like(ins, pairs):
    return {g: (tuple(ins[s].shape), np.dtype(ins[s].dtype)) for g, s in pairs}


def graph_send_recv_grad_meta(attrs, ins, facts):
    """graph_send_recv_grad's X@GRAD: X's shape and dtype."""
    return Meta(_like(ins, [("X@GRAD", "X")]), "numpy", fresh=True)


def graph_send_ue_recv_grad_meta(attrs, ins, facts):
    """graph_send_ue_recv_grad's X@GRAD and Y@GRAD: X's and Y's shapes and dtypes."""
    return Meta(_like(ins, [("X@GRAD", "X"), ("Y@GRAD", "Y")]), "numpy", fresh=True)


def graph_send_uv_grad_meta(attrs, ins, facts):
    """graph_send_uv_grad's x@GRAD and y@GRAD: x's and y's shapes and dtypes."""
    return Meta(_like(ins, [("x@GRAD", "x"), ("y@GRAD", "y")]), "numpy", fresh=True)
