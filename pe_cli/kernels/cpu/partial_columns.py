"""Kernels of ops/partial_columns.py (numpy), structured kernels (meta rules: shapes/partial_columns.py): the
"columns" variant, the window its rule decided (``Meta.args``) copied, concatenated or summed into the buffers it is
handed (numpy's concatenate and add through ``out=``). The kernels by name (CUDA's host ops) are the rule and
out-kernel through kernels/structured.adapter."""

import numpy as np

from ...shapes.partial_columns import partial_concat_meta, partial_grad_meta, partial_sum_meta
from ..structured import adapter


def _partial_concat(ins, outs, attrs, meta):
    start, stop = meta.args
    np.concatenate([x[:, start:stop] for x in ins["X"]], axis=1, out=outs["Out"])


def _partial_sum(ins, outs, attrs, meta):
    start, stop = meta.args
    xs, out = ins["X"], outs["Out"]
    np.copyto(out, xs[0][:, start:stop])
    for x in xs[1:]:
        np.add(out, x[:, start:stop], out=out, casting="same_kind")  # (out += x's window)


def _scatter(outs, meta, pieces):
    """Each X@GRAD: its piece in the window, zeros outside it."""
    start, stop = meta.args
    for g, piece in zip(outs["X@GRAD"], pieces):
        g[:, :start] = 0
        g[:, stop:] = 0
        g[:, start:stop] = piece


def _partial_concat_grad(ins, outs, attrs, meta):
    start, stop = meta.args
    dout, w = ins["Out@GRAD"], stop - start
    _scatter(outs, meta, [dout[:, i * w : (i + 1) * w] for i in range(len(ins["X"]))])


def _partial_sum_grad(ins, outs, attrs, meta):
    _scatter(outs, meta, [ins["Out@GRAD"]] * len(ins["X"]))


OUT = {
    "partial_concat": _partial_concat,
    "partial_sum": _partial_sum,
    "partial_concat_grad": _partial_concat_grad,
    "partial_sum_grad": _partial_sum_grad,
}
META = {
    "partial_concat": partial_concat_meta,
    "partial_sum": partial_sum_meta,
    "partial_concat_grad": partial_grad_meta,
    "partial_sum_grad": partial_grad_meta,
}
partial_concat, partial_sum, partial_concat_grad, partial_sum_grad = (adapter(META[op], OUT[op], op) for op in OUT)
