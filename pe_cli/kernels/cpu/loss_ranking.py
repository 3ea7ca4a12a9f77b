"""CPU out-kernels of the ranking losses (ops/loss_ranking.py): margin_rank_loss, rank_loss, bpr_loss and their
gradients, structured kernels: vectorised numpy, ``fresh`` variants of the meta rules in
pe_cli/shapes/loss_pairwise.py. ``bpr_ids`` checks the labels (for the CUDA kernels too); a label out of range is
refused in one line when the values are read."""

import numpy as np

from ..value_checks import bpr_ids
from .launches import by_variant
from .loss_classification import cast, put


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------


def _margin_rank(ins, outs, attrs, meta):
    x1, x2, label = ins["X1"], ins["X2"], ins["Label"]
    out = np.maximum(0, -label * (x1 - x2) + attrs["margin"])
    put(outs, "Out", cast(out, x1), meta, (x1, x2, label))
    put(outs, "Activated", cast(out > 0, x1), meta, (x1, x2, label))


def _margin_rank_grad(ins, outs, attrs, meta):
    label, act, dout = ins["Label"], ins["Activated"], ins["Out@GRAD"]
    g = cast(dout * label * act, act)
    put(outs, "X1@GRAD", -g, meta, (label, act, dout))
    put(outs, "X2@GRAD", g, meta, (label, act, dout))


def _rank(ins, outs, attrs, meta):
    """Label, Left and Right are each [N] or [N, 1]: computed flat, Out shaped as Label."""
    label, left, right = (np.reshape(ins[k], -1) for k in ("Label", "Left", "Right"))
    o = left - right
    out = cast(np.logaddexp(0, o) - label * o, left).reshape(np.shape(ins["Label"]))
    put(outs, "Out", out, meta, (ins["Label"], ins["Left"], ins["Right"]))


def _rank_grad(ins, outs, attrs, meta):
    label, left, right, dout = (np.reshape(ins[k], -1) for k in ("Label", "Left", "Right", "Out@GRAD"))
    o = left - right
    g = cast(dout * (0.5 * (1 + np.tanh(0.5 * o)) - label), left)  # sigmoid(o) - label, no overflow
    given = tuple(ins.values())
    put(outs, "Left@GRAD", g.reshape(np.shape(ins["Left"])), meta, given)
    put(outs, "Right@GRAD", (-g).reshape(np.shape(ins["Right"])), meta, given)


# -- bpr_loss ---------------------------------------------------------------------------------------


def _bpr_rows(x, label):
    """X as [rows, items] and the positive item of each row, checked."""
    return x.reshape(-1, x.shape[-1]), bpr_ids(x.shape, label)


def _bpr(ins, outs, attrs, meta):
    x = ins["X"]
    rows, ids = _bpr_rows(x, ins["Label"])
    r = np.arange(rows.shape[0])
    d = rows - rows[r, ids][:, None]
    sp = np.logaddexp(0, d)
    sp[r, ids] = 0
    y = sp.sum(axis=1) / (rows.shape[1] - 1)
    put(outs, "Y", cast(y.reshape(x.shape[:-1] + (1,)), x), meta, (x,))


def _bpr_grad(ins, outs, attrs, meta):
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, ids = _bpr_rows(x, ins["Label"])
    r = np.arange(rows.shape[0])
    d = rows - rows[r, ids][:, None]
    g = 0.5 * (1 + np.tanh(0.5 * d)) * (dy.reshape(-1, 1) / (rows.shape[1] - 1))
    g[r, ids] = 0
    g[r, ids] = -g.sum(axis=1)
    put(outs, "X@GRAD", cast(g.reshape(x.shape), x), meta, (x, dy))


MARGIN_RANK = by_variant("margin_rank_loss_out", None, numpy=_margin_rank)
MARGIN_RANK_GRAD = by_variant("margin_rank_loss_grad_out", None, numpy=_margin_rank_grad)
RANK = by_variant("rank_loss_out", None, numpy=_rank)
RANK_GRAD = by_variant("rank_loss_grad_out", None, numpy=_rank_grad)
BPR = by_variant("bpr_loss_out", None, numpy=_bpr)
BPR_GRAD = by_variant("bpr_loss_grad_out", None, numpy=_bpr_grad)
