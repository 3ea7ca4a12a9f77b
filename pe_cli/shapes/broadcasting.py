"""The broadcasting and tiling family's rules, shared by the kernels of both devices: the shape X expands to,
and expand's operands for it; and the meta rules (structured kernels, shapes/structured.py) of expand, tile,
expand_as (Fluid's tiling) and expand_v2, expand_as_v2 (Paddle 2.x's broadcast), broadcast_tensors and their
gradients, their CPU out-kernels in
kernels/cpu/broadcasting.py.

Each forward's Out is X repeated ("tile": args X's shape with a 1 before each dim and Out's shape with each dim
split into [times, X's dim], so one broadcast copy into the buffer writes it: np.tile's values). A gradient sums
Out@GRAD over the repeats, as the kernels always summed it (numpy's sum over the times of Out@GRAD viewed as
[t0, d0, t1, d1, ...], cast to X's dtype): "sum", a numpy form (``fresh``); args that view and its axes. Each
rule reads shapes, dtypes and the op's attributes (those a tensor gives, ExpandTimes, Shape ...: their values
replace the attributes before the rule runs, the ops' attr_tensors), never a value; a refusal is the one line
the kernels always gave."""

import numpy as np

from ..base.broadcast_shapes import expanded_shape
from ..base.errors import PeError
from .manipulation_run import expand_times
from .structured import Meta


def target_of(op, x_shape, shape):
    """The shape X expands to (-1: X's dim), checked as Paddle's kernel checks it."""
    out = expanded_shape(tuple(x_shape), [int(t) for t in shape])
    if out is None:
        raise PeError(
            f"{op}: cannot expand X {list(x_shape)} to {list(shape)}: each dim of X must be 1 or equal "
            f"the target's (-1 keeps X's), the target at least X's rank"
        )
    return out


def times_of(x_shape, target):
    """(X's shape with leading 1s, the times each dim repeats): expand's operands."""
    padded = (1,) * (len(target) - len(x_shape)) + tuple(x_shape)
    return padded, [t // d if d else 1 for d, t in zip(padded, target)]


def _tiled(x, reps, shape=None):
    """Out = np.tile(X, reps) (X of ``shape`` where given: X's with leading 1s): the shorter of X's shape and
    ``reps`` takes leading 1s."""
    shape, reps = tuple(x.shape if shape is None else shape), tuple(int(t) for t in reps)
    n = max(len(shape), len(reps))
    if any(t < 0 for t in reps):  # (numpy's refusal, or its empty Out of an empty X: "empty", nothing to copy)
        return Meta({"Out": (np.tile(np.empty(shape, x.dtype), reps).shape, x.dtype)}, "empty")
    shape, reps = (1,) * (n - len(shape)) + shape, (1,) * (n - len(reps)) + reps
    out = tuple(d * t for d, t in zip(shape, reps))
    split = tuple(k for t, d in zip(reps, shape) for k in (t, d))
    ones = tuple(k for d in shape for k in (1, d))
    return Meta({"Out": (out, x.dtype)}, "tile", args=(ones, split))


def _summed(x, times, dims, reshaped=None):
    """X@GRAD of X's shape and dtype: Out@GRAD as [t0, d0, t1, d1, ...] (times ``times``, dims ``dims``) summed over
    the t's, in ``reshaped``'s shape where given (X's, of dims with leading 1s)."""
    split = tuple(k for t, d in zip(times, dims) for k in (t, d))
    axes = tuple(range(0, 2 * len(dims), 2))
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "sum", args=(split, axes, reshaped), fresh=True)


def expand_meta(attrs, ins, facts):
    """expand: X tiled expand_times[i] times along each dim i."""
    return _tiled(ins["X"], attrs["expand_times"])


def expand_grad_meta(attrs, ins, facts):
    x = ins["X"]
    return _summed(x, list(attrs["expand_times"]), tuple(x.shape))


def tile_meta(attrs, ins, facts):
    """tile: X tiled repeat_times[i] times along each dim i, the shorter of the two with leading 1s."""
    return _tiled(ins["X"], attrs["repeat_times"])


def tile_grad_meta(attrs, ins, facts):
    x, reps = ins["X"], list(attrs["repeat_times"])
    n = max(len(x.shape), len(reps))
    padded, times = (1,) * (n - len(x.shape)) + tuple(x.shape), [1] * (n - len(reps)) + reps
    return _summed(x, times, padded, tuple(x.shape))


def expand_as_meta(attrs, ins, facts):
    """expand_as: X tiled to target_tensor's shape (each of its dims a multiple of X's, else refused)."""
    x = ins["X"]
    return _tiled(x, expand_times(x.shape, ins["target_tensor"].shape))


def expand_as_grad_meta(attrs, ins, facts):
    x = ins["X"]
    return _summed(x, expand_times(x.shape, ins["Out@GRAD"].shape), tuple(x.shape), tuple(x.shape))


def expand_v2_meta(attrs, ins, facts):
    """expand_v2: X broadcast to the shape attribute (-1 keeps X's dim)."""
    x = ins["X"]
    return _expanded(x, target_of("expand_v2", x.shape, attrs["shape"]))


def expand_as_v2_meta(attrs, ins, facts):
    """expand_as_v2: X broadcast to Y's shape, or to target_shape where no Y is given."""
    x, y = ins["X"], ins.get("Y")
    return _expanded(x, target_of("expand_as_v2", x.shape, y.shape if y is not None else attrs["target_shape"]))


def _expanded(x, target):
    padded, times = times_of(x.shape, target)
    return _tiled(x, times, padded)


def expand_v2_grad_meta(attrs, ins, facts):
    """expand_v2_grad and expand_as_v2_grad: Out@GRAD summed back to X's shape (X with leading 1s)."""
    x = ins["X"]
    padded, times = times_of(x.shape, ins["Out@GRAD"].shape)
    return _summed(x, times, padded, tuple(x.shape))


def broadcast_tensors_meta(attrs, ins, facts):
    """broadcast_tensors' Out, one per X: the Xs' shapes broadcast, each X's dtype; "copy" (each X broadcast into
    its buffer)."""
    xs = ins["X"]
    target = np.broadcast_shapes(*[tuple(x.shape) for x in xs])
    return Meta({"Out": [(target, x.dtype) for x in xs]}, "copy")


def broadcast_tensors_grad_meta(attrs, ins, facts):
    """broadcast_tensors_grad's X@GRAD, one per X: its Out@GRAD summed back to X's shape (expand_v2_grad's: fresh
    sums)."""
    grads = [expand_v2_grad_meta({}, {"X": x, "Out@GRAD": d}, facts) for x, d in zip(ins["X"], ins["Out@GRAD"])]
    return Meta({"X@GRAD": [g.outputs["X@GRAD"] for g in grads]}, "sum", fresh=True)
