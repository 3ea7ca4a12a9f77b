"""Meta rules of the ops that rearrange a tensor's elements (ops/rearranging.py): reverse, flip and roll and
roll's gradient, structured kernels (shapes/structured.py; their CPU out-kernels: kernels/cpu/manipulation.py).
Out is X's shape and dtype."""

import itertools
import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .manipulation_run import reverse_axes
from .structured import Meta


def _reversed(x, axes):
    """ "flip" along ``axes`` (args: numpy's flip of X copied into Out), or "copy" (no axis: a copy of X)."""
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "flip" if axes else "copy", args=(axes,))


def reverse_meta(attrs, ins, facts):
    """reverse's Out: X reversed along each dim ``axis`` names (once however often named; rank above 6 refused,
    as Fluid's kernels)."""
    x = ins["X"]
    return _reversed(x, reverse_axes(len(x.shape), attrs))


def flip_meta(attrs, ins, facts):
    """flip's Out: reverse's, along ``dims`` (none: a copy of X, as Paddle 2.6's)."""
    x = ins["X"]
    return _reversed(x, reverse_axes(len(x.shape), {"axis": attrs["dims"]}))


def _roll_pieces(shape, shifts, dims):
    """numpy's roll of an array of ``shape`` as (X's window, Out's window) pairs, X's window copied into Out's (its
    checks and their words: numpy's)."""
    axes = normalize_axis_tuple(dims, len(shape), allow_duplicate=True)
    broadcasted = np.broadcast(shifts, axes)
    if broadcasted.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = dict.fromkeys(range(len(shape)), 0)
    for sh, ax in broadcasted:
        total[ax] += int(sh)
    rolls = [((slice(None), slice(None)),)] * len(shape)
    for ax, offset in total.items():
        offset %= shape[ax] or 1
        if offset:
            rolls[ax] = ((slice(None, -offset), slice(offset, None)), (slice(-offset, None), slice(None, offset)))
    return tuple(tuple(zip(*indices)) for indices in itertools.product(*rolls))


def _rolled(x, slot, attrs, sign):
    shape, shifts, dims = tuple(x.shape), [sign * s for s in attrs["shifts"]], list(attrs["dims"])
    if not dims and len(shifts) == 1:  # Paddle 2.x's roll of X flattened (no axis)
        return Meta({slot: (shape, x.dtype)}, "flat", args=(_roll_pieces((math.prod(shape),), shifts, [0]),))
    if not dims:
        return Meta({slot: (shape, x.dtype)}, "copy")
    pieces = _roll_pieces(shape, shifts, [d % max(len(shape), 1) for d in dims])
    return Meta({slot: (shape, x.dtype)}, "roll", args=(pieces,))


def roll_meta(attrs, ins, facts):
    """roll's Out: X rolled ``shifts`` along ``dims``, into Out's buffer as numpy's roll copies it (args: the windows
    of X copied into Out's): "roll", "flat" (Paddle 2.x's roll of X flattened: one shift, no dims), "copy" (no dims:
    a copy of X)."""
    return _rolled(ins["X"], "Out", attrs, 1)


def roll_grad_meta(attrs, ins, facts):
    """roll_grad's X@GRAD: Out@GRAD rolled back (roll's, the shifts negated)."""
    return _rolled(ins["Out@GRAD"], "X@GRAD", attrs, -1)
