"""The CPU out-kernels of cross_entropy, cross_entropy2, sigmoid_cross_entropy_with_logits and their grad ops
(structured kernels, pe_cli/shapes/structured.py): ``out(ins, outs, attrs, meta)`` computes the variant their
meta rule chose (pe_cli/shapes/loss_classification.py) with numpy, a ``fresh`` variant each (the arrays numpy
made are the outputs, cast to the output's shape and dtype: kernels/structured.fresh_output). A hard label
outside X's classes (negative included) that is not ignore_index is refused in one line, as softmax_with_cross_entropy's."""

import numpy as np

from ...base.errors import PeError
from ..structured import fresh_output
from .launches import by_variant

_APPROX_INF = 1e20  # Fluid's TolerableValue: log(0) is capped instead of being -inf


def _hard_ids(label, ignore_index, shape):
    """The class ids [..., 1] of an X shaped ``shape`` (Label [..., 1], or [...] without the trailing 1) and
    where they are ignore_index. A label outside X's classes that is not ignore_index is refused, a negative one
    too (as Paddle's kernels refuse it; numpy's indexing would take -1 for the last class)."""
    ids = label.reshape(tuple(shape[:-1]) + (1,)).astype(np.int64, copy=False)
    ignore = ids == ignore_index
    bad = ~ignore & ((ids < 0) | (ids >= shape[-1]))
    if bad.any():
        row = int(np.flatnonzero(bad.reshape(-1))[0])
        raise PeError(
            f"Label holds {int(ids.reshape(-1)[row])} at row {row}, outside the {shape[-1]} classes of X "
            f"{list(shape)} (and not ignore_index={ignore_index})"
        )
    return np.where(ignore, 0, ids), ignore


def _put(outs, slot, result, meta, inputs):
    outs[slot] = fresh_output(result, meta.outputs[slot], inputs)


def _ce_soft(ins, outs, attrs, meta):
    x, label = ins["X"], ins["Label"]
    with np.errstate(divide="ignore"):
        log_x = np.clip(np.log(x), -_APPROX_INF, _APPROX_INF)
        y = -(label * log_x).sum(axis=-1, keepdims=True)
    _put(outs, "Y", y.astype(x.dtype, copy=False), meta, (x, label))


def _ce_hard_y(x, label, ignore_index):
    ids, ignore = _hard_ids(label, ignore_index, x.shape)
    with np.errstate(divide="ignore"):
        y = -np.clip(np.log(np.take_along_axis(x, ids, axis=-1)), -_APPROX_INF, _APPROX_INF)
    y[ignore] = 0
    y = y.reshape(label.shape) if label.ndim == x.ndim - 1 else y
    return y.astype(x.dtype, copy=False)


def _ce_hard(ins, outs, attrs, meta):
    x, label = ins["X"], ins["Label"]
    _put(outs, "Y", _ce_hard_y(x, label, attrs["ignore_index"]), meta, (x, label))


def _ce2(ins, outs, attrs, meta):
    """cross_entropy of hard labels, with Fluid's extra outputs: MatchX, X's value at each row's label
    (0 where ignored), and XShape (X's shape and a trailing 0)."""
    x, label = ins["X"], ins["Label"]
    ids, ignore = _hard_ids(label, attrs["ignore_index"], x.shape)
    match = np.where(ignore, 0, np.take_along_axis(x, ids, axis=-1)).astype(x.dtype, copy=False)
    y = _ce_hard_y(x, label, attrs["ignore_index"])
    _put(outs, "Y", y, meta, (x, label))
    _put(outs, "MatchX", match, meta, (x, label))
    _put(outs, "XShape", np.empty(x.shape + (0,), dtype=x.dtype), meta, (x, label))


def _at_labels(shape, dtype, ids, values):
    dx = np.zeros(shape, dtype)
    np.put_along_axis(dx, ids, values, axis=-1)
    return dx


def _ce_grad_soft(ins, outs, attrs, meta):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    _put(outs, "X@GRAD", (-dy * label / x).astype(x.dtype, copy=False), meta, (x, label, dy))


def _ce_grad_hard(ins, outs, attrs, meta):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    ids, ignore = _hard_ids(label, attrs["ignore_index"], x.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        picked = -dy.reshape(ids.shape) / np.take_along_axis(x, ids, axis=-1)
    dx = _at_labels(x.shape, x.dtype, ids, np.where(ignore, 0, picked))
    _put(outs, "X@GRAD", dx.astype(x.dtype, copy=False), meta, (x, label, dy))


def _ce_grad_match(ins, outs, attrs, meta):
    """Fluid's: -Y@GRAD / MatchX at each row's label, X's shape from XShape."""
    match, dy, shape = ins["MatchX"], ins["Y@GRAD"], ins["XShape"].shape[:-1]
    ids, ignore = _hard_ids(ins["Label"], attrs["ignore_index"], shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        picked = -dy.reshape(ids.shape) / match.reshape(ids.shape)
    _put(outs, "X@GRAD", _at_labels(shape, match.dtype, ids, np.where(ignore, 0, picked)), meta, (match, dy))


def _sce_norm(label, attrs, meta):
    keep = label != attrs["ignore_index"]
    norm = max(float(keep.sum()), 1e-5) if meta.variant == "normalize" else 1.0
    return keep, norm


def _sce(ins, outs, attrs, meta):
    x, label = ins["X"], ins["Label"]
    keep, norm = _sce_norm(label, attrs, meta)
    out = np.maximum(x, 0) - x * label + np.log1p(np.exp(-np.abs(x)))
    out = np.where(keep, out, 0) / norm
    _put(outs, "Out", out.astype(x.dtype, copy=False), meta, (x, label))


def _sce_grad(ins, outs, attrs, meta):
    x, label, dout = ins["X"], ins["Label"], ins["Out@GRAD"]
    keep, norm = _sce_norm(label, attrs, meta)
    sig = 1.0 / (1.0 + np.exp(-x))
    dx = np.where(keep, (sig - label) * dout, 0) / norm
    _put(outs, "X@GRAD", dx.astype(x.dtype, copy=False), meta, (x, label, dout))


CROSS_ENTROPY = by_variant("cross_entropy_out", None, soft=_ce_soft, hard=_ce_hard)
CROSS_ENTROPY2 = by_variant("cross_entropy2_out", None, hard=_ce2)
CROSS_ENTROPY_GRAD = by_variant("cross_entropy_grad_out", None, soft=_ce_grad_soft, hard=_ce_grad_hard)
CROSS_ENTROPY_GRAD2 = by_variant("cross_entropy_grad2_out", None, hard=_ce_grad_hard, match=_ce_grad_match)
SIGMOID_CE = by_variant("sigmoid_cross_entropy_with_logits_out", None, plain=_sce, normalize=_sce)
SIGMOID_CE_GRAD = by_variant("sigmoid_cross_entropy_with_logits_grad_out", None, plain=_sce_grad, normalize=_sce_grad)
