"""CPU kernels of the ranking losses (ops/loss_ranking.py): margin_rank_loss, rank_loss and bpr_loss,
vectorised numpy. ``bpr_ids`` checks the labels for the CUDA kernels too."""

import numpy as np

from .loss_classification import cast
from ..value_checks import bpr_ids


# -- margin_rank_loss, rank_loss ----------------------------------------------------------------------


def margin_rank_loss(ins, attrs):
    x1, x2, label = ins["X1"], ins["X2"], ins["Label"]
    out = np.maximum(0, -label * (x1 - x2) + attrs["margin"])
    return {"Out": cast(out, x1), "Activated": cast(out > 0, x1)}


def margin_rank_loss_grad(ins, attrs):
    label, act, dout = ins["Label"], ins["Activated"], ins["Out@GRAD"]
    g = cast(dout * label * act, act)
    return {"X1@GRAD": -g, "X2@GRAD": g}


def rank_loss(ins, attrs):
    """Label, Left and Right are each [N] or [N, 1]: computed flat, Out shaped as Label."""
    label, left, right = (np.reshape(ins[k], -1) for k in ("Label", "Left", "Right"))
    o = left - right
    return {"Out": cast(np.logaddexp(0, o) - label * o, left).reshape(np.shape(ins["Label"]))}


def rank_loss_grad(ins, attrs):
    label, left, right, dout = (np.reshape(ins[k], -1) for k in ("Label", "Left", "Right", "Out@GRAD"))
    o = left - right
    g = cast(dout * (0.5 * (1 + np.tanh(0.5 * o)) - label), left)  # sigmoid(o) - label, no overflow
    return {"Left@GRAD": g.reshape(np.shape(ins["Left"])), "Right@GRAD": (-g).reshape(np.shape(ins["Right"]))}


# -- bpr_loss ---------------------------------------------------------------------------------------


def bpr_rows(x, label):
    """X as [rows, items] and the positive item of each row, checked."""
    return x.reshape(-1, x.shape[-1]), bpr_ids(x.shape, label)


def bpr_loss(ins, attrs):
    x = ins["X"]
    rows, ids = bpr_rows(x, ins["Label"])
    d = rows - rows[np.arange(rows.shape[0]), ids][:, None]
    sp = np.logaddexp(0, d)
    sp[np.arange(rows.shape[0]), ids] = 0
    y = sp.sum(axis=1) / (rows.shape[1] - 1)
    return {"Y": cast(y.reshape(x.shape[:-1] + (1,)), x)}


def bpr_loss_grad(ins, attrs):
    x, dy = ins["X"], ins["Y@GRAD"]
    rows, ids = bpr_rows(x, ins["Label"])
    r = np.arange(rows.shape[0])
    d = rows - rows[r, ids][:, None]
    g = 0.5 * (1 + np.tanh(0.5 * d)) * (dy.reshape(-1, 1) / (rows.shape[1] - 1))
    g[r, ids] = 0
    g[r, ids] = -g.sum(axis=1)
    return {"X@GRAD": cast(g.reshape(x.shape), x)}
