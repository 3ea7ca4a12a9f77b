"""The meta rules of softmax_with_cross_entropy and its grad op, structured kernels (shapes/structured.py):
from the op's attributes and its inputs' shapes and dtypes, the outputs' shapes and dtypes and the variant
that computes them (the CPU out-kernels: kernels/cpu/loss_softmax_ce.py), decided once per shape signature.

The out-kernels compute along the last axis: the ops are registered with ``last_axis`` (kernels/layout.py),
which moves ``attrs['axis']`` last around them, so that a variant is the same for any axis. ``Meta.loop``
names the compiled loop a planned step launches over the values as they lie: only where the axis is the last
(elsewhere the step runs the op's kernel, which moves it).

softmax_with_cross_entropy (Logits, Label -> Softmax of Logits' shape, Loss with a 1 at the axis, both of
Logits' dtype), hard labels (int) over float32 or float64 logits, not empty:

- "one_loop": _pointwise_loops.softmax_ce, one pass a row (below ``WIDE_SOFTMAX`` logits);
- "rows": float32 from WIDE_SOFTMAX logits on: _softmax_rows_loops.softmax_ce's vectorised exponentials,
  rows in parts over the device's threads;
- "numpy_exp": float64 from WIDE_SOFTMAX logits on: numpy's vectorised exp between two loops;
- "numpy": the rest (soft labels, other dtypes, empty logits): numpy's log-softmax;
- "probabilities": Paddle 2.x's use_softmax=False (Logits hold probabilities): numpy's log of them.

softmax_with_cross_entropy_grad (Label, Softmax, Loss@GRAD -> Logits@GRAD of Softmax's dtype): "rows"
(_softmax_rows_loops.softmax_ce_grad) for hard labels over float32 or float64 values of one dtype, not empty,
one Loss@GRAD per label; "numpy" for the rest; "probabilities" for use_softmax=False. A rule refuses nothing: the
shape rule did at build time."""

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from .reduction import scalar_shape
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# from this many logits on, the exponentials are numpy's (vectorised: 2.2 us for 5,120 float32 values)
# between two numba passes; the one loop calls the scalar exp twice a value (40 us for the MLP's
# [512, 10], 14 us in the wide form; 1.2 against 2.1 us for [10, 10], where numpy's calls cost more)
WIDE_SOFTMAX = 1024
ONE_LOOP, ROWS, NUMPY_EXP, NUMPY = "one_loop", "rows", "numpy_exp", "numpy"
PROBABILITIES = "probabilities"


def _last(attrs, rank):
    """True where the op's ``axis`` is the last of ``rank`` dims (the values lie as the loops read them)."""
    return rank > 0 and attrs["axis"] % rank == rank - 1


def _hard(attrs, values, label):
    """Hard labels (ints) over float32 or float64 values of at least one dim."""
    return not attrs["soft_label"] and values.dtype in _FLOATS and label.dtype.kind in "iu" and len(values.shape) > 0


def softmax_ce_meta(attrs, ins, facts):
    """softmax_with_cross_entropy's outputs and variant (above)."""
    logits, label = ins["Logits"], ins["Label"]
    shape, dtype = tuple(logits.shape), logits.dtype
    axis = attrs["axis"] % len(shape) if shape else 0
    outputs = {"Softmax": (shape, dtype), "Loss": (shape[:axis] + (1,) + shape[axis + 1 :], dtype)}
    size = numel(shape)
    if not attrs.get(
        "use_softmax", True
    ):  # (callers of the kernel by name may give Fluid's attributes only)  # (Logits are probabilities: Paddle 2.x's F.cross_entropy(use_softmax=False))
        return Meta(outputs, PROBABILITIES, fresh=True)
    if not _hard(attrs, logits, label) or not size:
        return Meta(outputs, NUMPY, fresh=True)
    if size < WIDE_SOFTMAX:
        variant = ONE_LOOP
    else:
        variant = ROWS if dtype == np.float32 else NUMPY_EXP
    loop = "softmax_ce" if variant != NUMPY_EXP and _last(attrs, len(shape)) else ""
    return Meta(outputs, variant, loop, ("Logits", "Label"))


def _broadcast(*shapes):
    """numpy's broadcast of ``shapes``, or the first where they do not broadcast (numpy raises its own error
    when the values are computed)."""
    return tuple(broadcast(shapes) or shapes[0])


def softmax_ce_grad_meta(attrs, ins, facts):
    """softmax_with_cross_entropy_grad's output and variant (above)."""
    softmax, label, dloss = ins["Softmax"], ins["Label"], ins["Loss@GRAD"]
    shape, dtype = tuple(softmax.shape), softmax.dtype
    size, labels = numel(shape), numel(label.shape)
    if not attrs.get("use_softmax", True):  # (callers of the kernel by name may give Fluid's attributes only)
        return Meta({"Logits@GRAD": (shape, dtype)}, PROBABILITIES, fresh=True)
    if _hard(attrs, softmax, label) and size and dloss.dtype == dtype and numel(dloss.shape) == labels:
        rows = size // shape[-1] if shape[-1] else 0
        loop = "softmax_ce_grad" if _last(attrs, len(shape)) and labels == rows else ""
        return Meta({"Logits@GRAD": (shape, dtype)}, ROWS, loop, ("Softmax", "Label", "Loss@GRAD"))
    given = tuple(label.shape) if attrs["soft_label"] else tuple(label.shape[:-1]) + (1,)
    return Meta({"Logits@GRAD": (_broadcast(shape, given, tuple(dloss.shape)), dtype)}, NUMPY, fresh=True)


# -- cross_entropy, cross_entropy2, sigmoid_cross_entropy_with_logits and their gradients ----------------
# (their CPU out-kernels: kernels/cpu/loss_cross_entropy.py, numpy forms: ``fresh`` variants). cross_entropy's
# variant is "soft" or "hard" (Y [..., 1], or Label's shape where hard ids come without the trailing 1);
# cross_entropy_grad2's "match" where MatchX and XShape are given (Fluid's), else "hard" over X;
# sigmoid_cross_entropy_with_logits' "normalize" or "plain". Outputs have X's dtype (the gradient from MatchX:
# MatchX's).


def cross_entropy_meta(attrs, ins, facts):
    x, label = ins["X"], ins["Label"]
    shape = tuple(x.shape)
    if attrs.get("soft_label"):
        return Meta({"Y": (_broadcast(shape, tuple(label.shape))[:-1] + (1,), x.dtype)}, "soft", fresh=True)
    y = tuple(label.shape) if len(label.shape) == len(shape) - 1 else shape[:-1] + (1,)
    return Meta({"Y": (y, x.dtype)}, "hard", fresh=True)


def cross_entropy2_meta(attrs, ins, facts):
    x = ins["X"]
    shape = tuple(x.shape)
    outputs = dict(cross_entropy_meta({"soft_label": False}, ins, facts).outputs)
    outputs["MatchX"] = (shape[:-1] + (1,), x.dtype)
    outputs["XShape"] = (shape + (0,), x.dtype)
    return Meta(outputs, "hard", fresh=True)


def cross_entropy_grad_meta(attrs, ins, facts):
    x, label, dy = ins["X"], ins["Label"], ins["Y@GRAD"]
    if attrs.get("soft_label"):
        shape = _broadcast(tuple(dy.shape), tuple(label.shape), tuple(x.shape))
        return Meta({"X@GRAD": (shape, x.dtype)}, "soft", fresh=True)
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "hard", fresh=True)


def cross_entropy_grad2_meta(attrs, ins, facts):
    match = ins.get("MatchX")
    if match is None:
        return cross_entropy_grad_meta({"soft_label": False}, ins, facts)
    return Meta({"X@GRAD": (tuple(ins["XShape"].shape[:-1]), match.dtype)}, "match", fresh=True)


def sigmoid_ce_meta(attrs, ins, facts):
    x, label = ins["X"], ins["Label"]
    shape = _broadcast(tuple(x.shape), tuple(label.shape))
    return Meta({"Out": (shape, x.dtype)}, "normalize" if attrs["normalize"] else "plain", fresh=True)


def sigmoid_ce_grad_meta(attrs, ins, facts):
    x, label, dout = ins["X"], ins["Label"], ins["Out@GRAD"]
    shape = _broadcast(tuple(x.shape), tuple(label.shape), tuple(dout.shape))
    return Meta({"X@GRAD": (shape, x.dtype)}, "normalize" if attrs["normalize"] else "plain", fresh=True)


# -- the elementwise and row losses: label_smooth, kldiv_loss, teacher_student_sigmoid_loss, log_loss, bce_loss,
# nll_loss, hinge_loss, modified_huber_loss and their gradients (their CPU out-kernels: kernels/cpu/
# loss_classification.py, numpy forms: ``fresh`` variants). Each output is numpy's broadcast of the inputs its
# form reads, in the dtype of the first (X, Predicted, Logits; a gradient from IntermediateVal: its); a reduced
# loss is [1]. A variant is the form's: label_smooth's "prior" or "uniform" (epsilon / K) and its gradient's
# "scaled", written through ``out=`` (float values), kldiv_loss's "none" or "reduce", nll_loss's "none" or
# "reduce"; the others have one, "numpy".


def _shape(*values):
    return _broadcast(*(tuple(v.shape) for v in values))


def _one(slot, dtype_of, *slots):
    """A rule of one output ``slot``: the broadcast of ``slots``' shapes, ``dtype_of``'s dtype, variant "numpy"."""

    def meta(attrs, ins, facts):
        return Meta({slot: (_shape(*(ins[s] for s in slots)), ins[dtype_of].dtype)}, "numpy", fresh=True)

    return meta


def label_smooth_meta(attrs, ins, facts):
    """label_smooth's Out, X's shape (broadcast with PriorDist's values) and dtype: "uniform" (epsilon / K) or
    "prior" written through ``out=`` where X is float and PriorDist (if given) of its dtype, else "numpy" (a
    fresh numpy form: other dtypes). ``args``: 1 - epsilon and epsilon / K (uniform) or epsilon (prior)."""
    x, prior = ins["X"], ins.get("PriorDist")
    shape = tuple(x.shape) if prior is None else _broadcast(tuple(x.shape), (numel(prior.shape),))
    if x.dtype.kind != "f" or (prior is not None and prior.dtype != x.dtype):
        return Meta({"Out": (shape, x.dtype)}, "numpy", fresh=True)
    if prior is not None:
        return Meta({"Out": (shape, x.dtype)}, "prior", args=(1 - attrs["epsilon"], attrs["epsilon"]))
    # (epsilon / K, as the numpy form makes it: epsilon times a scalar 1 / K of X's dtype; K = 0 refused as it is)
    scalar = attrs["epsilon"] * x.dtype.type(1.0 / x.shape[-1])
    return Meta({"Out": (shape, x.dtype)}, "uniform", args=(1 - attrs["epsilon"], scalar))


def label_smooth_grad_meta(attrs, ins, facts):
    """label_smooth_grad's X@GRAD, Out@GRAD's shape and dtype: "scaled" through ``out=`` for float values, else
    "numpy" (fresh)."""
    d = ins["Out@GRAD"]
    spec = {"X@GRAD": (tuple(d.shape), d.dtype)}
    return Meta(spec, "scaled") if d.dtype.kind == "f" else Meta(spec, "numpy", fresh=True)


def kldiv_meta(attrs, ins, facts):
    x = ins["X"]
    if attrs["reduction"] == "none":
        return Meta({"Loss": (_shape(x, ins["Target"]), x.dtype)}, "none", fresh=True)
    return Meta({"Loss": (scalar_shape(facts.zero_dim), x.dtype)}, "reduce", fresh=True)


def kldiv_grad_meta(attrs, ins, facts):
    x, t = ins["X"], ins["Target"]
    if attrs["reduction"] == "none":
        return Meta({"X@GRAD": (_shape(t, ins["Loss@GRAD"]), x.dtype)}, "none", fresh=True)
    return Meta({"X@GRAD": (tuple(t.shape), x.dtype)}, "reduce", fresh=True)


def nll_meta(attrs, ins, facts):
    """nll_loss's Out (Label's shape, or [1] reduced) and Total_weight [1] (both 0-D where the op says so:
    ``facts.zero_dim``, a Paddle 2.x program's, as Paddle 2.6's); ``args``: whether X's class dim is moved last
    (X of more than 2 dims) to make its rows."""
    x, label = ins["X"], ins["Label"]
    total, moved = (scalar_shape(facts.zero_dim), x.dtype), (len(x.shape) > 2,)
    if attrs["reduction"] == "none":
        return Meta({"Out": (tuple(label.shape), x.dtype), "Total_weight": total}, "none", args=moved, fresh=True)
    return Meta({"Out": total, "Total_weight": total}, "reduce", args=moved, fresh=True)


def nll_grad_meta(attrs, ins, facts):
    x = ins["X"]
    variant = "none" if attrs["reduction"] == "none" else "reduce"
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, variant, args=(len(x.shape) > 2,), fresh=True)


def modified_huber_meta(attrs, ins, facts):
    x = ins["X"]
    shape = _shape(x, ins["Y"])
    return Meta({"IntermediateVal": (shape, x.dtype), "Out": (shape, x.dtype)}, "numpy", fresh=True)


teacher_student_meta = _one("Y", "X", "X", "Label")
teacher_student_grad_meta = _one("X@GRAD", "X", "X", "Label", "Y@GRAD")
log_loss_meta = _one("Loss", "Predicted", "Predicted", "Labels")
log_loss_grad_meta = _one("Predicted@GRAD", "Predicted", "Loss@GRAD", "Labels", "Predicted")
bce_meta = _one("Out", "X", "X", "Label")
bce_grad_meta = _one("X@GRAD", "X", "Out@GRAD", "X", "Label")
hinge_meta = _one("Loss", "Logits", "Logits", "Labels")
hinge_grad_meta = _one("Logits@GRAD", "Logits", "Loss@GRAD", "Logits", "Labels")
modified_huber_grad_meta = _one("X@GRAD", "IntermediateVal", "Y", "IntermediateVal", "Out@GRAD")
