"""The meta rules of the regression losses (huber_loss, smooth_l1_loss, center_loss) and the ranking losses
(margin_rank_loss, rank_loss, bpr_loss) and their gradients, structured kernels (shapes/structured.py): numpy
forms, ``fresh`` variants (their CPU out-kernels: kernels/cpu/loss_regression.py, kernels/cpu/loss_ranking.py).
Each output is numpy's broadcast of the inputs its form reads, in the dtype the form gives it (mostly the first
input's; huber_loss's Residual and center_loss's SampleCenterDiff numpy's promotion of the two they subtract); a
per-sample loss is [N, 1]. Variants: smooth_l1_loss's "weighted" (both weights given) or "plain", center_loss's
"update" (need_update) or "plain"; the others have one, "numpy". A rule refuses nothing: the shape rules did
at build time, and the kernels check the values (a label out of range)."""

import numpy as np

from ..base.dims import numel
from .loss_classification import _broadcast
from .structured import Meta


def _shape(*values):
    return _broadcast(*(tuple(v.shape) for v in values))


def _meta(outputs, variant="numpy"):
    return Meta(outputs, variant, fresh=True)


# -- huber_loss, smooth_l1_loss, center_loss --------------------------------------------------------


def huber_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    shape = _shape(y, x)
    return _meta({"Out": (shape, x.dtype), "Residual": (shape, np.result_type(y.dtype, x.dtype))})


def huber_grad_meta(attrs, ins, facts):
    r = ins["Residual"]
    spec = (_shape(r, ins["Out@GRAD"]), r.dtype)
    return _meta({"X@GRAD": spec, "Y@GRAD": spec})


def _weighted(ins):
    return ins.get("InsideWeight") is not None and ins.get("OutsideWeight") is not None


def smooth_l1_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    weighted = _weighted(ins)
    diff = _shape(x, y, ins["InsideWeight"]) if weighted else _shape(x, y)
    outputs = {"Diff": (diff, x.dtype), "Out": ((x.shape[0], 1), x.dtype)}
    return _meta(outputs, "weighted" if weighted else "plain")


def smooth_l1_grad_meta(attrs, ins, facts):
    diff, dout = ins["Diff"], ins["Out@GRAD"]
    rows = (numel(dout.shape),) + (1,) * (len(diff.shape) - 1)
    weighted = _weighted(ins)
    given = [tuple(diff.shape)] + (
        [tuple(ins["InsideWeight"].shape), tuple(ins["OutsideWeight"].shape)] if weighted else []
    )
    spec = (_broadcast(*given, rows), diff.dtype)
    return _meta({"X@GRAD": spec, "Y@GRAD": spec}, "weighted" if weighted else "plain")


def center_meta(attrs, ins, facts):
    x, centers = ins["X"], ins["Centers"]
    diff = _broadcast(tuple(x.shape), (numel(ins["Label"].shape),) + tuple(centers.shape[1:]))
    outputs = {
        "SampleCenterDiff": (diff, np.result_type(x.dtype, centers.dtype)),
        "Loss": (diff[:1] + (1,) + diff[2:], x.dtype),  # (a row's half squared norm: summed along dim 1)
        "CentersOut": (tuple(centers.shape), centers.dtype),
    }
    return _meta(outputs, "update" if attrs["need_update"] else "plain")


def center_grad_meta(attrs, ins, facts):
    diff = ins["SampleCenterDiff"]
    return _meta({"X@GRAD": (_broadcast(tuple(diff.shape), (numel(ins["Loss@GRAD"].shape), 1)), diff.dtype)})


# -- margin_rank_loss, rank_loss, bpr_loss -------------------------------------------------------------


def margin_rank_meta(attrs, ins, facts):
    x1 = ins["X1"]
    spec = (_shape(ins["Label"], x1, ins["X2"]), x1.dtype)
    return _meta({"Out": spec, "Activated": spec})


def margin_rank_grad_meta(attrs, ins, facts):
    act = ins["Activated"]
    spec = (_shape(ins["Out@GRAD"], ins["Label"], act), act.dtype)
    return _meta({"X1@GRAD": spec, "X2@GRAD": spec})


def rank_meta(attrs, ins, facts):
    return _meta({"Out": (tuple(ins["Label"].shape), ins["Left"].dtype)})


def rank_grad_meta(attrs, ins, facts):
    left, right = ins["Left"], ins["Right"]
    return _meta({"Left@GRAD": (tuple(left.shape), left.dtype), "Right@GRAD": (tuple(right.shape), left.dtype)})


def bpr_meta(attrs, ins, facts):
    x = ins["X"]
    return _meta({"Y": (tuple(x.shape[:-1]) + (1,), x.dtype)})


def bpr_grad_meta(attrs, ins, facts):
    x = ins["X"]
    return _meta({"X@GRAD": (tuple(x.shape), x.dtype)})
