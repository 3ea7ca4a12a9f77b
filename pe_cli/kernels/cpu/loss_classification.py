"""CPU kernels of the classification losses (ops/loss_classification.py), structured kernels all:
softmax_with_cross_entropy and its gradient (their loops and forms: loss_softmax_ce.py), cross_entropy,
cross_entropy2, sigmoid_cross_entropy_with_logits and their gradients (loss_cross_entropy.py), and here the
out-kernels of the other losses (label_smooth, kldiv_loss, teacher_student_sigmoid_loss, log_loss, bce_loss,
nll_loss, hinge_loss, modified_huber_loss and their gradients): vectorised numpy, ``fresh`` variants (the array
numpy made is the output: kernels/structured.fresh_output) of the meta rules in
pe_cli/shapes/loss_classification.py. A value a loss cannot take (bce_loss's X outside [0, 1], nll_loss's class
out of range) is refused in one line when the values are read."""

import numpy as np

from ...base.errors import PeError
from ...shapes import loss_classification as meta_rules
from ...shapes.reduction import kl_scale
from ..structured import adapter, fresh_output
from .launches import by_variant
from .loss_softmax_ce import FORWARD, GRAD


# softmax_with_cross_entropy and its grad op are structured kernels: the meta rules of
# pe_cli/shapes/loss_classification.py and the out-kernels of loss_softmax_ce.py, registered with both
# (ops/loss_classification.py); these are the two as ``kernel(ins, attrs, ctx)`` for the callers that run a
# kernel by name (op tests, CUDA's host fallbacks).
softmax_with_cross_entropy = adapter(meta_rules.softmax_ce_meta, FORWARD, "softmax_with_cross_entropy")
softmax_with_cross_entropy_grad = adapter(meta_rules.softmax_ce_grad_meta, GRAD, "softmax_with_cross_entropy_grad")


def cast(a, like):
    """``a`` as an array of ``like``'s dtype (the other loss families' kernels' cast)."""
    return np.asarray(a).astype(like.dtype, copy=False)


def put(outs, slot, result, meta, inputs):
    """``result``, the array a form's arithmetic made (never an input's memory), as the output ``slot``: itself where
    it is a C-contiguous array of the Meta's shape and dtype (the loss's usual case, no further call), else
    kernels/structured.fresh_output's (a 0-D form's numpy scalar, a view)."""
    shape, dtype = meta.outputs[slot]
    if type(result) is np.ndarray and result.dtype == dtype and result.shape == shape and result.flags.c_contiguous:
        outs[slot] = result
    else:
        outs[slot] = fresh_output(result, (shape, dtype), inputs)


# -- label_smooth -----------------------------------------------------------------------------------


def _label_smooth(ins, outs, attrs, meta):
    """The numpy form (X not float, or PriorDist of another dtype): cast to X's dtype."""
    x, eps = ins["X"], attrs["epsilon"]
    prior = ins["PriorDist"].reshape(-1) if "PriorDist" in ins else x.dtype.type(1.0 / x.shape[-1])
    put(outs, "Out", cast((1 - eps) * x + eps * prior, x), meta, (x,))


def _label_smooth_into(ins, outs, attrs, meta):
    """(1 - epsilon) X + epsilon PriorDist (or epsilon / K, a scalar of X's dtype: the Meta's) written into Out:
    the same two float ufunc loops as the numpy form, in X's dtype."""
    keep, smooth = meta.args
    out = outs["Out"]
    np.multiply(ins["X"], keep, out=out)
    np.add(out, smooth * ins["PriorDist"].reshape(-1) if meta.variant == "prior" else smooth, out=out)


def _label_smooth_grad(ins, outs, attrs, meta):
    d = ins["Out@GRAD"]
    put(outs, "X@GRAD", cast((1 - attrs["epsilon"]) * d, d), meta, (d,))


def _label_smooth_grad_into(ins, outs, attrs, meta):
    np.multiply(ins["Out@GRAD"], 1 - attrs["epsilon"], out=outs["X@GRAD"])


# -- kldiv_loss -------------------------------------------------------------------------------------


def _kldiv(ins, outs, attrs, meta):
    x, t = ins["X"], ins["Target"]
    pos = t > 0
    loss = np.where(pos, t * (np.log(np.where(pos, t, 1)) - x), 0)
    if meta.variant == "reduce":
        loss = np.array([loss.sum() / max(kl_scale(x, attrs["reduction"]), 1)])
    put(outs, "Loss", cast(loss, x), meta, (x, t))


def _kldiv_grad(ins, outs, attrs, meta):
    x, t, dloss = ins["X"], ins["Target"], ins["Loss@GRAD"]
    if meta.variant == "reduce":
        d = dloss.reshape(-1)[0] / max(kl_scale(x, attrs["reduction"]), 1)
    else:
        d = dloss
    put(outs, "X@GRAD", cast(np.where(t > 0, -t * d, 0), x), meta, (x, t, dloss))


# -- teacher_student_sigmoid_loss ------------------------------------------------------------------------


def _teacher_student(ins, outs, attrs, meta):
    x, label = ins["X"], ins["Label"]
    sp = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))  # softplus(x) = log(1 + exp(x))
    y = np.where(
        label < -1,
        sp,
        np.where(label < 0, sp - x, np.where(label < 1, 2 * sp - x * label, 2 * sp - x - x * (label - 1))),
    )
    put(outs, "Y", cast(y, x), meta, (x, label))


def _teacher_student_grad(ins, outs, attrs, meta):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    up, low = attrs["soft_max_up_bound"], attrs["soft_max_lower_bound"]
    s = np.clip(x, low, up)
    pred = 1 / (1 + np.exp(-s))
    g = np.where(label < -1, -pred, np.where(label < 0, 1 - pred, label - 2 * pred))
    g = np.where((s >= up) | (s <= low), 0, g)
    put(outs, "X@GRAD", cast(-g * dy, x), meta, (x, label, dy))


# -- log_loss -------------------------------------------------------------------------------------------


def _log_loss(ins, outs, attrs, meta):
    p, label, eps = ins["Predicted"], ins["Labels"], attrs["epsilon"]
    loss = -label * np.log(p + eps) - (1 - label) * np.log(1 - p + eps)
    put(outs, "Loss", loss.astype(p.dtype, copy=False), meta, (p, label))


def _log_loss_grad(ins, outs, attrs, meta):
    p, label, eps, d = ins["Predicted"], ins["Labels"], attrs["epsilon"], ins["Loss@GRAD"]
    grad = d * (-label / (p + eps) + (1 - label) / (1 - p + eps))
    put(outs, "Predicted@GRAD", grad.astype(p.dtype, copy=False), meta, (p, label, d))


# -- bce_loss, nll_loss, hinge_loss, modified_huber_loss -------------------------------------------------


def _bce(ins, outs, attrs, meta):
    x, label = ins["X"], ins["Label"]
    if x.size and not (np.all(x >= 0) and np.all(x <= 1)):
        raise PeError("bce_loss: X holds a value outside [0, 1]; it takes probabilities (apply sigmoid first)")
    t, floor = x.dtype.type, x.dtype.type(-100)
    with np.errstate(divide="ignore"):
        out = (label - t(1)) * np.maximum(np.log(t(1) - x), floor) - label * np.maximum(np.log(x), floor)
    put(outs, "Out", out.astype(x.dtype, copy=False), meta, (x, label))


def _bce_grad(ins, outs, attrs, meta):
    x, label, dout = ins["X"], ins["Label"], ins["Out@GRAD"]
    t = x.dtype.type
    grad = dout * ((x - label) / np.maximum((t(1) - x) * x, t(1e-12)))
    put(outs, "X@GRAD", grad.astype(x.dtype, copy=False), meta, (x, label, dout))


def _nll_rows(ins, attrs, meta):
    """X as [positions, classes] (its class dim moved last where the Meta says: X of more than 2 dims), each
    position's class (0 where ignored), weight (0 where ignored) and whether it counts (its label is not
    ignore_index)."""
    x, label = ins["X"], ins["Label"].astype(np.int64, copy=False).reshape(-1)
    classes = x.shape[1]
    rows = np.moveaxis(x, 1, -1).reshape(-1, classes) if meta.args[0] else x
    kept = label != attrs["ignore_index"]
    if np.any(kept & ((label < 0) | (label >= classes))):
        raise PeError(f"nll_loss: Label holds a class outside [0, {classes}) (that is not ignore_index)")
    ids = np.where(kept, label, 0)
    weight = ins.get("Weight")
    w = (weight[ids] if weight is not None else np.ones(len(ids), x.dtype)) * kept
    return rows, ids, w.astype(x.dtype, copy=False), kept


def _nll(ins, outs, attrs, meta):
    x = ins["X"]
    rows, ids, w, _ = _nll_rows(ins, attrs, meta)
    losses = -rows[np.arange(len(ids)), ids] * w
    if meta.variant == "none":
        put(outs, "Out", losses.reshape(ins["Label"].shape).astype(x.dtype, copy=False), meta, (x,))
        outs["Total_weight"] = np.zeros(meta.outputs["Total_weight"][0], x.dtype)
        return
    total, out = w.sum(dtype=x.dtype), losses.sum(dtype=x.dtype)
    if attrs["reduction"] == "mean" and total != 0:
        out = out / total
    one = meta.outputs["Out"][0]  # ([1], or 0-D in a Paddle 2.x program: the Meta's)
    outs["Out"], outs["Total_weight"] = np.full(one, out, x.dtype), np.full(one, total, x.dtype)


def _nll_grad(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    rows, ids, w, kept = _nll_rows(ins, attrs, meta)
    if meta.variant == "none":
        d = -dout.reshape(-1) * w
    else:
        d = -dout.reshape(-1)[0] * w
        if attrs["reduction"] == "mean":
            with np.errstate(divide="ignore", invalid="ignore"):
                d = d / ins["Total_weight"].reshape(-1)[0]
    grad = np.zeros_like(rows)
    grad[np.arange(len(ids)), ids] = np.where(kept, d, 0)
    if meta.args[0]:
        grad = np.moveaxis(grad.reshape(np.moveaxis(x, 1, -1).shape), -1, 1)
    put(outs, "X@GRAD", grad.astype(x.dtype, copy=False), meta, (x, dout))


def _hinge(ins, outs, attrs, meta):
    x, y = ins["Logits"], ins["Labels"]
    put(outs, "Loss", np.maximum(x.dtype.type(1) - x * (2 * y - 1), 0).astype(x.dtype, copy=False), meta, (x, y))


def _hinge_grad(ins, outs, attrs, meta):
    x, y, d = ins["Logits"], ins["Labels"], ins["Loss@GRAD"]
    sign = (2 * y - 1).astype(x.dtype, copy=False)
    put(outs, "Logits@GRAD", (d * (x * sign < 1) * -sign).astype(x.dtype, copy=False), meta, (x, y, d))


def _modified_huber(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    v = (x * (2 * y - 1)).astype(x.dtype, copy=False)
    out = np.where(v < -1, -4 * v, np.where(v < 1, (1 - v) * (1 - v), 0))
    put(outs, "IntermediateVal", v, meta, (x, y))
    put(outs, "Out", out.astype(x.dtype, copy=False), meta, (x, y, v))


def _modified_huber_grad(ins, outs, attrs, meta):
    y, v, d = ins["Y"], ins["IntermediateVal"], ins["Out@GRAD"]
    sign = 2 * y - 1
    grad = np.where(v < -1, -4 * sign * d, np.where(v < 1, -2 * (1 - v) * sign * d, 0))
    put(outs, "X@GRAD", grad.astype(v.dtype, copy=False), meta, (y, v, d))


LABEL_SMOOTH = by_variant(
    "label_smooth_out", None, uniform=_label_smooth_into, prior=_label_smooth_into, numpy=_label_smooth
)
LABEL_SMOOTH_GRAD = by_variant("label_smooth_grad_out", None, scaled=_label_smooth_grad_into, numpy=_label_smooth_grad)
KLDIV = by_variant("kldiv_loss_out", None, none=_kldiv, reduce=_kldiv)
KLDIV_GRAD = by_variant("kldiv_loss_grad_out", None, none=_kldiv_grad, reduce=_kldiv_grad)
TEACHER_STUDENT = by_variant("teacher_student_sigmoid_loss_out", None, numpy=_teacher_student)
TEACHER_STUDENT_GRAD = by_variant("teacher_student_sigmoid_loss_grad_out", None, numpy=_teacher_student_grad)
LOG_LOSS = by_variant("log_loss_out", None, numpy=_log_loss)
LOG_LOSS_GRAD = by_variant("log_loss_grad_out", None, numpy=_log_loss_grad)
BCE = by_variant("bce_loss_out", None, numpy=_bce)
BCE_GRAD = by_variant("bce_loss_grad_out", None, numpy=_bce_grad)
NLL = by_variant("nll_loss_out", None, none=_nll, reduce=_nll)
NLL_GRAD = by_variant("nll_loss_grad_out", None, none=_nll_grad, reduce=_nll_grad)
HINGE = by_variant("hinge_loss_out", None, numpy=_hinge)
HINGE_GRAD = by_variant("hinge_loss_grad_out", None, numpy=_hinge_grad)
MODIFIED_HUBER = by_variant("modified_huber_loss_out", None, numpy=_modified_huber)
MODIFIED_HUBER_GRAD = by_variant("modified_huber_loss_grad_out", None, numpy=_modified_huber_grad)

# log_loss and its gradient by name: CUDA runs them on the host (kernels/cuda/loss_classification.py's HOST_OPS)
log_loss = adapter(meta_rules.log_loss_meta, LOG_LOSS, "log_loss")
log_loss_grad = adapter(meta_rules.log_loss_grad_meta, LOG_LOSS_GRAD, "log_loss_grad")
