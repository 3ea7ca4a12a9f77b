"""Elementwise kernels: the sum of several tensors (``sum``, a kernel of that name: the builtin is never
called here; up to four float arrays a pass, _elementwise_loops.py), clip, clip_by_norm, minus and
elementwise_div_grad_grad. (The isfinite/isinf/isnan checks are structured kernels: logic.py.)

The binary elementwise ops (elementwise_add, ...) and their gradients (elementwise_binary.py) and scale
(scaling.py) are structured kernels; their kernels and the helpers of Fluid's ``axis`` broadcasting are named here too
for the kernels that call them (fused, momentum, the gradients of other families)."""

import functools

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from . import _replicas, control_flow
from ..common import div_grad_grad
from .elementwise_binary import (  # noqa: F401 (named here for the kernels that call them)
    align,
    align_both,
    bias_grad,
    elementwise_add,
    elementwise_add_grad,
    elementwise_div,
    elementwise_div_grad,
    elementwise_floordiv,
    elementwise_max,
    elementwise_max_grad,
    elementwise_min,
    elementwise_min_grad,
    elementwise_mod,
    elementwise_mul,
    elementwise_mul_grad,
    elementwise_pow,
    elementwise_pow_grad,
    elementwise_sub,
    elementwise_sub_grad,
    middle_view,
    mid_run,
    unbroadcast,
)
from .scaling import clip, clip_grad, scale  # noqa: F401 (structured kernels, named here for the kernels that call them)
from .selected_rows import sum_with_sparse
from .runtime.loops import add_same, flat, is_float, lazy, run_in_parts

_elementwise = lazy("_elementwise_loops")


def sum(ins, attrs):
    xs = ins["X"]
    if isinstance(xs[0], list):  # tensor arrays' gradients (control flow): slot by slot
        return {"Out": functools.reduce(control_flow.add, xs)}
    if any(isinstance(x, SelectedRows) for x in xs):
        return {"Out": sum_with_sparse(xs)}
    if len(xs) > 2 and _same_floats(*xs):
        return {"Out": _sum_floats(xs)}
    if len(xs) > 1 and xs[0].dtype == xs[1].dtype and xs[0].shape == xs[1].shape:
        # one pass, where a copy then += made two (on the device's threads for large floats): the same bits
        out = add_same(xs[0], xs[1], np.empty(xs[0].shape, xs[0].dtype)) if is_float(xs[0]) else np.add(xs[0], xs[1])
        rest = xs[2:]
    else:
        out, rest = xs[0].copy(), xs[1:]
    for x in rest:
        out += x
    return {"Out": out}


def _same_floats(*xs):
    """True when the arrays are float arrays of one shape and dtype."""
    return is_float(*xs) and all(x.shape == xs[0].shape for x in xs)


def _sum_floats(xs):
    """The sum of three or more float arrays of one shape and dtype in numpy's order (((x0 + x1) + x2)
    + x3, then + x4 + x5, ...), in passes over up to four of them (_elementwise_loops.py)."""
    out = np.empty(xs[0].shape, xs[0].dtype)
    o = out.reshape(-1)
    head = [flat(x) for x in xs[:4]]
    run_in_parts(_elementwise(), f"add{len(head)}", o.size, *head, o, replica=getattr(_replicas, f"add{len(head)}"))
    rest = xs[4:]
    while len(rest) > 1:
        run_in_parts(_elementwise(), "add3", o.size, o, flat(rest[0]), flat(rest[1]), o, replica=_replicas.add3)
        rest = rest[2:]
    if rest:
        add_same(out, rest[0], out)
    return out


def clip_by_norm(ins, attrs):
    x = ins["X"]
    if isinstance(x, SelectedRows):  # as Fluid's: the rows merged (duplicates summed), their values clipped
        rows, values = x.merged()
        return {"Out": x.with_arrays(rows, clip_by_norm({"X": values}, attrs)["Out"])}
    norm = np.sqrt(np.sum(np.square(x, dtype=x.dtype), dtype=x.dtype))
    max_norm = x.dtype.type(attrs["max_norm"])
    if norm > max_norm:
        return {"Out": (x * (max_norm / norm)).astype(x.dtype, copy=False)}
    return {"Out": x.copy()}


def elementwise_div_grad_grad(ins, attrs, ctx):
    """Fluid's second-order gradient of elementwise_div, made of this device's kernels above."""
    return div_grad_grad(globals(), ins, attrs, ctx)


def dgc_clip_by_norm(ins, attrs, clip=clip_by_norm, step_of=lambda s: s):  # noqa: F811 (not the clip op)
    """clip_by_norm from step rampup_begin_step on (``clip``, ``step_of``: the CUDA kernel's clip and host copy)."""
    begin = int(attrs["rampup_begin_step"])
    if begin < 0 or int(np.asarray(step_of(ins["current_step"])).reshape(-1)[0]) < begin:
        return {"Out": ins["X"]}
    return clip({"X": ins["X"]}, attrs)


def minus(ins, attrs):
    """Fluid 1.8's minus: X - Y of one shape (checked at run time, as Fluid's)."""
    if ins["X"].shape != ins["Y"].shape:
        raise PeError(f"minus takes X and Y of one shape, got X {list(ins['X'].shape)} and Y {list(ins['Y'].shape)}")
    return elementwise_sub(ins, {"axis": -1})
