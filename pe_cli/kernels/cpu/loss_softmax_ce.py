"""The CPU out-kernels of softmax_with_cross_entropy and its grad op (structured kernels,
pe_cli/shapes/structured.py): ``FORWARD`` and ``GRAD``, ``out(ins, outs, attrs, meta)``, compute along the
last axis the variant their meta rule chose (pe_cli/shapes/loss_classification.py) into the buffers they are
handed:

- "one_loop": _pointwise_loops.softmax_ce, one pass a row instead of numpy's seven and fancy indexing;
- "rows": _softmax_rows_loops' vectorised exponentials (softmax_ce; the gradient's softmax_ce_grad), rows
  in parts on the device's threads where it has several (the same bits);
- "numpy_exp": float64's two passes around numpy's vectorised exp;
- "numpy": numpy's log-softmax (soft labels, other dtypes, empty values), cast to the output's dtype: a
  ``fresh`` variant (the arrays numpy made are the outputs);
- "probabilities": Paddle 2.x's use_softmax=False, Logits holding probabilities (fresh, numpy).

A label outside the classes (and not ignore_index) is refused in one line, as the loops find it. Their
``launches(op, table, meta)``: a planned step's launch of the same loop (pe_cli/executor/step_plan.py)."""

import math

import numpy as np

from ...base.errors import PeError
from ..structured import fresh_output
from .launches import by_variant
from .launches import Launch, flat as flat_arg, one
from .runtime.loops import lazy, run_in_parts

_loops = lazy("_pointwise_loops")
_rows = lazy("_softmax_rows_loops")


def _as_rows(values, label):
    """(values as [rows, classes], label as [rows]), the views the loops take."""
    return np.ascontiguousarray(values).reshape(-1, values.shape[-1]), np.ascontiguousarray(label).reshape(-1)


def _hard_forward(run):
    """A loop variant of the forward: ``run(logits2, label1, ignore_index, softmax2, loss1)`` gives the first
    row whose label is out of range (or -1)."""

    def variant(ins, outs, attrs, meta):
        logits, (logits2, label1) = ins["Logits"], _as_rows(ins["Logits"], ins["Label"])
        soft2 = outs["Softmax"].reshape(logits2.shape)
        bad = run(logits2, label1, attrs["ignore_index"], soft2, outs["Loss"].reshape(-1))
        if bad >= 0:
            raise PeError(
                f"Label holds {int(label1[bad])} at row {bad}, outside the {logits2.shape[1]} classes "
                f"of Logits {list(logits.shape)} (and not ignore_index={attrs['ignore_index']})"
            )

    return variant


def _one_loop(logits2, label1, ignore_index, soft2, loss1):
    return _loops().softmax_ce(logits2, label1, ignore_index, soft2, loss1)


def _wide_rows(logits2, label1, ignore_index, soft2, loss1):
    return run_in_parts(_rows(), "softmax_ce", logits2.size, logits2, label1, ignore_index, soft2, loss1)


def _numpy_exp(logits2, label1, ignore_index, soft2, loss1):
    loops, m = _loops(), np.empty(logits2.shape[0], dtype=logits2.dtype)
    loops.row_max_shift(logits2, m, soft2)
    np.exp(soft2, out=soft2)
    bad = loops.log_softmax_ce(logits2, m, soft2, label1, ignore_index, loss1)
    np.exp(soft2, out=soft2)
    return bad


def _numpy(ins, outs, attrs, meta):
    logits, label = ins["Logits"], ins["Label"]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_sum = np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    log_p = shifted - log_sum
    if attrs["soft_label"]:
        loss = -(label * log_p).sum(axis=-1, keepdims=True)
    else:
        ids = label.reshape(label.shape[:-1] + (1,)).astype(np.int64)
        ignore = ids == attrs["ignore_index"]
        loss = -np.take_along_axis(log_p, np.where(ignore, 0, ids), axis=-1)
        loss[ignore] = 0
    outs["Softmax"] = fresh_output(np.exp(log_p), meta.outputs["Softmax"], (logits, label))
    outs["Loss"] = fresh_output(loss, meta.outputs["Loss"], (logits, label))


_APPROX_INF = 1e20  # Paddle's TolerableValue: a log of 0 (or of inf) is -1e20 (1e20)


def _tolerable_log(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.clip(np.log(p), -_APPROX_INF, _APPROX_INF)


def _picked(label, classes, ignore_index):
    """(the hard labels as int64 ids [..., 1], where they are ignore_index), each id checked in range."""
    ids = label.reshape(label.shape[:-1] + (1,)).astype(np.int64)
    ignore = ids == ignore_index
    bad = ~ignore & ((ids < 0) | (ids >= classes))
    if bad.any():
        raise PeError(
            f"Label holds {int(ids[bad][0])}, outside the {classes} classes (and not ignore_index={ignore_index})"
        )
    return np.where(ignore, 0, ids), ignore


def _probabilities(ins, outs, attrs, meta):
    """use_softmax=False: Logits are probabilities; Softmax a copy of them, Loss -log of the label's (soft:
    -sum(Label * log)), logs of 0 taken as -1e20, as Paddle 2.6's CPU kernel."""
    p, label = ins["Logits"], ins["Label"]
    log_p = _tolerable_log(p)
    if attrs["soft_label"]:
        loss = -(label * log_p).sum(axis=-1, keepdims=True)
    else:
        ids, ignore = _picked(label, p.shape[-1], attrs["ignore_index"])
        loss = np.where(ignore, 0, -np.take_along_axis(log_p, ids, axis=-1))
    outs["Softmax"] = fresh_output(p.copy(), meta.outputs["Softmax"], (p, label))
    outs["Loss"] = fresh_output(loss, meta.outputs["Loss"], (p, label))


def _grad_probabilities(ins, outs, attrs, meta):
    """use_softmax=False's gradient, as Paddle 2.6's: -dLoss / p at the label (0 elsewhere and at ignore_index);
    soft: -Label / p * dLoss."""
    p, label, dloss = ins["Softmax"], ins["Label"], ins["Loss@GRAD"]
    with np.errstate(divide="ignore", invalid="ignore"):
        if attrs["soft_label"]:
            grad = -label / p * dloss
        else:
            ids, ignore = _picked(label, p.shape[-1], attrs["ignore_index"])
            grad = np.zeros(np.broadcast_shapes(p.shape, dloss.shape), p.dtype)
            at = np.where(ignore, 0, -1 / np.take_along_axis(p, ids, axis=-1) * dloss)
            np.put_along_axis(grad, ids, at.astype(p.dtype), axis=-1)
    outs["Logits@GRAD"] = fresh_output(grad, meta.outputs["Logits@GRAD"], (p, label, dloss))


def _grad_rows(ins, outs, attrs, meta):
    softmax2, label1 = _as_rows(ins["Softmax"], ins["Label"])
    dloss1 = np.ascontiguousarray(ins["Loss@GRAD"]).reshape(-1)
    dlogits2 = outs["Logits@GRAD"].reshape(softmax2.shape)
    run_in_parts(_rows(), "softmax_ce_grad", softmax2.size, softmax2, label1, dloss1, attrs["ignore_index"], dlogits2)


def _grad_numpy(ins, outs, attrs, meta):
    softmax, label, dloss = ins["Softmax"], ins["Label"], ins["Loss@GRAD"]
    if attrs["soft_label"]:
        grad = softmax - label
    else:
        ids = label.reshape(label.shape[:-1] + (1,)).astype(np.int64)
        grad = softmax.copy()
        ignore = ids == attrs["ignore_index"]
        picked = np.where(ignore, 0, ids)
        np.put_along_axis(grad, picked, np.take_along_axis(grad, picked, -1) - 1, axis=-1)
        grad = np.where(ignore, 0, grad)
    outs["Logits@GRAD"] = fresh_output(grad * dloss, meta.outputs["Logits@GRAD"], (softmax, label, dloss))


def _rows_of(table, name):
    shape = table[name][0]
    return ("var", name, (math.prod(shape[:-1]), shape[-1]))


def forward_launches(op, table, meta):
    """A planned step's launch of the forward's "one_loop" or "rows" variant: its serial loop (the kernel's
    parallel twin gives the same bits) over the values as they lie, checked for a label out of range; None
    where the meta names no loop (the op then runs as a Python launch, its kernel)."""
    logits, label = one(op, "Logits"), one(op, "Label")
    soft, loss = one(op, "Softmax", "outputs"), one(op, "Loss", "outputs")
    if not meta.loop or None in (logits, label, soft, loss):
        return None
    loop = _rows().softmax_ce if meta.variant == "rows" else _loops().softmax_ce
    args = [_rows_of(table, logits), flat_arg(table, label), ("const", op.attrs["ignore_index"])]
    args += [_rows_of(table, soft), flat_arg(table, loss)]
    return [Launch(loop, args, writes=[soft, loss], checked=True)]


def grad_launches(op, table, meta):
    """A planned step's launch of the gradient's "rows" variant (its serial loop), or None (above)."""
    soft, label, dloss = one(op, "Softmax"), one(op, "Label"), one(op, "Loss@GRAD")
    dlogits = one(op, "Logits@GRAD", "outputs")
    if not meta.loop or None in (soft, label, dloss, dlogits):
        return None
    args = [_rows_of(table, soft), flat_arg(table, label), flat_arg(table, dloss), ("const", op.attrs["ignore_index"])]
    return [Launch(_rows().softmax_ce_grad, [*args, _rows_of(table, dlogits)], writes=[dlogits])]


FORWARD = by_variant(
    "softmax_with_cross_entropy_out",
    forward_launches,
    one_loop=_hard_forward(_one_loop),
    rows=_hard_forward(_wide_rows),
    numpy_exp=_hard_forward(_numpy_exp),
    numpy=_numpy,
    probabilities=_probabilities,
)
GRAD = by_variant(
    "softmax_with_cross_entropy_grad_out",
    grad_launches,
    rows=_grad_rows,
    numpy=_grad_numpy,
    probabilities=_grad_probabilities,
)
