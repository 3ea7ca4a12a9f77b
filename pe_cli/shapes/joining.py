"""Meta rules (structured kernels, shapes/structured.py) of the joining ops: concat, split, stack, unstack, unbind,
their gradients, and sum (add_n, the gradients' accumulation). Their out-kernels: kernels/cpu/joining.py (sum's:
kernels/cpu/elementwise.py). A list output (split's Out, a gradient's X@GRAD) is a list of (shape, dtype), one
per variable. Each rule reads the shapes and dtypes of its inputs and decides what the op's kernel decided on
every call; what that kernel refused (numpy's refusals: inputs that disagree) its out-kernel's numpy call still
refuses, in the same words."""

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .manipulation_run import split_sizes, unbind_view
from .structured import Meta


def _spec(shape, dtype):
    return tuple(shape), np.dtype(dtype)


def _result_dtype(xs):
    """The dtype numpy's concatenate and stack give their inputs (promoted)."""
    return np.result_type(*(x.dtype for x in xs))


def concat_meta(attrs, ins, facts):
    """concat: Out is the inputs joined along ``axis`` (numpy's concatenate, into Out: "concatenate")."""
    xs = ins["X"]
    axis = attrs["axis"] % xs[0].ndim
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] if x.ndim > axis else 0 for x in xs)
    return Meta({"Out": _spec(shape, _result_dtype(xs))}, "concatenate", args=(axis,))


def concat_grad_meta(attrs, ins, facts):
    """concat_grad: X@GRAD[i] is Out@GRAD's part along ``axis`` of X[i]'s size there ("parts")."""
    xs, dout = ins["X"], ins["Out@GRAD"]
    axis = attrs["axis"] % dout.ndim
    sizes = [x.shape[axis] for x in xs]
    if sum(sizes) != dout.shape[axis]:
        raise PeError(
            f"concat_grad: the X sizes along axis {axis}, {sizes}, sum to {sum(sizes)}, but Out@GRAD "
            f"{list(dout.shape)} has {dout.shape[axis]}"
        )
    return Meta({"X@GRAD": _parts(dout, axis, sizes)}, "parts", args=(axis, _bounds(sizes)))


def _parts(x, axis, sizes):
    """The (shape, dtype) of each of x's parts of ``sizes`` along ``axis``."""
    return [_spec(x.shape[:axis] + (n,) + x.shape[axis + 1 :], x.dtype) for n in sizes]


def _bounds(sizes):
    """(start, end) of each part of ``sizes``."""
    ends = np.cumsum(sizes).tolist()
    return tuple(zip([0, *ends[:-1]], ends))


def split_meta(attrs, ins, facts):
    """split: Out[i] is X's i-th part along ``axis`` (``num`` equal ones, or ``sections``; the rule's refusals:
    shapes/manipulation_run.split_sizes), copied into its buffer ("parts")."""
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    sizes = split_sizes(x.shape, axis, attrs)
    return Meta({"Out": _parts(x, axis, sizes)}, "parts", args=(axis, _bounds(sizes)))


def stack_meta(attrs, ins, facts):
    """stack: Y is the inputs (one shape) stacked along a new dim ``axis`` (numpy's stack, into Y: "stack");
    unstack_grad's the same of its Y@GRAD into X@GRAD."""
    return _stacked(ins["X"], attrs["axis"], "Y")


def unstack_grad_meta(attrs, ins, facts):
    return _stacked(ins["Y@GRAD"], attrs["axis"], "X@GRAD")


def _stacked(xs, axis, slot):
    """Each input seen with a new dim of 1 at ``axis`` (args: its index), the views joined along it (numpy's
    stack, without its Python-level checks on every call: numpy's refusal of inputs of different shapes is made
    here, in its words)."""
    axis %= xs[0].ndim + 1
    if any(x.shape != xs[0].shape for x in xs):
        raise ValueError("all input arrays must have the same shape")
    shape = xs[0].shape[:axis] + (len(xs),) + xs[0].shape[axis:]
    return Meta({slot: _spec(shape, _result_dtype(xs))}, "stack", args=(axis, (slice(None),) * axis + (None,)))


def stack_grad_meta(attrs, ins, facts):
    """stack_grad: X@GRAD[i] is Y@GRAD's i-th slice along ``axis``, in X[i]'s shape ("slices")."""
    xs, dy = ins["X"], ins["Y@GRAD"]
    axis = attrs["axis"] % dy.ndim
    return Meta({"X@GRAD": [_spec(x.shape, dy.dtype) for x in xs]}, "slices", args=(axis,))


def unstack_meta(attrs, ins, facts):
    """unstack: Y[j] is X's j-th slice along ``axis`` (that dim removed; 0-D in a Paddle 2.x program where
    nothing is left, else [1]), X seen as [rows before axis, slices, the rest] ("slices")."""
    x = ins["X"]
    return _unbound(x, attrs["axis"] % x.ndim, x.shape[attrs["axis"] % x.ndim], facts, "Y")


def unbind_meta(attrs, ins, facts):
    """unbind: unstack's, with k outputs (``facts.count``: the op's; X's slices where not said): with fewer
    than the slices, Fluid's kernel reads X's first rows * k * cols elements as [rows, k, cols]."""
    x = ins["X"]
    axis = attrs["axis"] % x.ndim
    return _unbound(x, axis, facts.count("Out", x.shape[axis]), facts, "Out")


def _unbound(x, axis, k, facts, slot):
    rows, cols, shape = unbind_view(x.shape, axis, k, facts.zero_dim)
    return Meta({slot: [_spec(shape, x.dtype)] * k}, "slices", args=(rows, k, cols))


def unbind_leading_grad_meta(attrs, ins, facts):
    """unbind_leading_grad: X@GRAD (X's shape, Out@GRAD's dtype) holds each Out@GRAD where its output read X
    (X's first elements as [rows, k, cols]), 0 elsewhere ("leading")."""
    x, grads = ins["X"], ins["Out@GRAD"]
    rows, cols, _ = unbind_view(x.shape, attrs["axis"] % x.ndim, len(grads))
    return Meta({"X@GRAD": _spec(x.shape, grads[0].dtype)}, "leading", args=(rows, len(grads), cols))


def sum_meta(attrs, ins, facts):
    """sum (X[0] + X[1] + ...), in numpy's order, into Out of X[0]'s shape and dtype: "floats" for three or more
    float32 (float64) arrays of one shape and dtype (passes over up to four of them, kernels/cpu/_elementwise_loops.py),
    "pair_floats" and "pair" for two or more whose first two agree in shape and dtype (X[0] + X[1] in one pass, on
    the device's threads for large float32/float64 ones, then the rest added in place), else "copy" (X[0] copied,
    the rest added in place). Row-sparse values (SelectedRows) and tensor arrays (lists: a control-flow op's
    gradients) are summed by their own forms, which make a new value that is no array of a shape known before:
    "sparse" and "arrays", fresh (no buffer is handed for them; Out's (shape, dtype) is (None, None))."""
    xs = ins["X"]
    first = xs[0]
    if isinstance(first, list):
        return Meta({"Out": (None, None)}, "arrays", fresh=True)
    if any(isinstance(x, SelectedRows) for x in xs):
        return Meta({"Out": (None, None)}, "sparse", fresh=True)
    spec = _spec(first.shape, first.dtype)
    floats = first.dtype in _FLOATS
    if len(xs) > 2 and floats and all(x.dtype == first.dtype and x.shape == first.shape for x in xs):
        return Meta({"Out": spec}, "floats")
    if len(xs) > 1 and first.dtype == xs[1].dtype and first.shape == xs[1].shape:
        return Meta({"Out": spec}, "pair_floats" if floats else "pair")
    return Meta({"Out": spec}, "copy")


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
