"""CPU out-kernels (structured kernels, shapes/structured.py) of the joining ops: concat, split, stack, unstack,
unbind and their gradients; their meta rules: shapes/joining.py (sum's out-kernel: elementwise.py). Each writes through numpy's
``out=`` or copies each part into the buffer it is handed; none allocates."""

import numpy as np

from .launches import by_variant


def _concatenate(ins, outs, attrs, meta):
    np.concatenate(ins["X"], axis=meta.args[0], out=outs["Out"])


def _parts(slot, source):
    """X (Out@GRAD)'s parts along the Meta's axis, each copied into its buffer of ``slot``."""

    def run(ins, outs, attrs, meta):
        axis, bounds = meta.args
        x, before = ins[source], (slice(None),) * axis
        for buffer, (start, end) in zip(outs[slot], bounds):
            np.copyto(buffer, x[(*before, slice(start, end))])

    return run


def _stack(source, slot):
    """The inputs, each seen with a new dim at the axis, joined into Y (X@GRAD): numpy's stack, its checks made by
    the meta rule."""

    def run(ins, outs, attrs, meta):
        axis, index = meta.args
        np.concatenate([x[index] for x in ins[source]], axis=axis, out=outs[slot])

    return run


def _stack_slices(ins, outs, attrs, meta):
    """stack_grad: X@GRAD[i] is Y@GRAD's i-th slice along the axis (into its buffer seen in the slice's shape)."""
    dy, before = ins["Y@GRAD"], (slice(None),) * meta.args[0]
    for i, buffer in enumerate(outs["X@GRAD"]):
        part = dy[(*before, i)]
        np.copyto(buffer.reshape(part.shape), part)


def _slices(slot):
    """unstack's and unbind's: X's first rows * k * cols elements seen as [rows, k, cols]; output j is its [:, j]
    (each buffer seen as [rows, cols])."""

    def run(ins, outs, attrs, meta):
        rows, k, cols = meta.args
        parts = ins["X"].reshape(-1)[: rows * k * cols].reshape(rows, k, cols)
        for j, buffer in enumerate(outs[slot]):
            np.copyto(buffer.reshape(rows, cols), parts[:, j])

    return run


def _leading(ins, outs, attrs, meta):
    """unbind_leading_grad: X@GRAD's first rows * k * cols elements seen as [rows, k, cols], Out@GRAD[j] put in its
    [:, j] (cast as an assignment casts, as the stacked gradients were), the rest 0."""
    rows, k, cols = meta.args
    dx, n = outs["X@GRAD"].reshape(-1), rows * k * cols
    dx[n:] = 0
    parts = dx[:n].reshape(rows, k, cols)
    for j, grad in enumerate(ins["Out@GRAD"]):
        parts[:, j] = grad.reshape(rows, cols)


CONCAT = by_variant("concat_out", None, concatenate=_concatenate)
CONCAT_GRAD = by_variant("concat_grad_out", None, parts=_parts("X@GRAD", "Out@GRAD"))
SPLIT = by_variant("split_out", None, parts=_parts("Out", "X"))
STACK = by_variant("stack_out", None, stack=_stack("X", "Y"))
STACK_GRAD = by_variant("stack_grad_out", None, slices=_stack_slices)
UNSTACK = by_variant("unstack_out", None, slices=_slices("Y"))
UNBIND = by_variant("unbind_out", None, slices=_slices("Out"))
UNBIND_LEADING_GRAD = by_variant("unbind_leading_grad_out", None, leading=_leading)
UNSTACK_GRAD = by_variant("unstack_grad_out", None, stack=_stack("Y@GRAD", "X@GRAD"))
