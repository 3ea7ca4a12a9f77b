"""Kernels of Paddle 2.x's broadcasting ops (pe_cli/ops/broadcasting.py) over manipulation's: expand_v2 /
expand_as_v2 / broadcast_tensors are expand (np.tile) of X with leading 1s, their gradients expand_grad's
sums."""

import numpy as np

from ...base.broadcast_shapes import expanded_shape
from ...base.errors import PeError
from .manipulation import expand, expand_grad


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


def expand_to(x, target, expand_kernel=expand):
    padded, times = times_of(x.shape, target)
    return expand_kernel({"X": x.reshape(padded)}, {"expand_times": times})["Out"]


def grad_to(x, dout, grad_kernel=expand_grad):
    padded, times = times_of(x.shape, dout.shape)
    return grad_kernel({"X": x.reshape(padded), "Out@GRAD": dout}, {"expand_times": times})["X@GRAD"].reshape(x.shape)


def expand_v2(ins, attrs):
    x = ins["X"]
    return {"Out": expand_to(x, target_of("expand_v2", x.shape, attrs["shape"]))}


def expand_v2_grad(ins, attrs):
    return {"X@GRAD": grad_to(ins["X"], ins["Out@GRAD"])}


def expand_as_v2(ins, attrs):
    x = ins["X"]
    shape = ins["Y"].shape if ins.get("Y") is not None else attrs["target_shape"]
    return {"Out": expand_to(x, target_of("expand_as_v2", x.shape, shape))}


expand_as_v2_grad = expand_v2_grad


def broadcast_tensors(ins, attrs):
    xs = ins["X"]
    target = np.broadcast_shapes(*[x.shape for x in xs])
    return {"Out": [expand_to(x, target) for x in xs]}


def broadcast_tensors_grad(ins, attrs):
    return {"X@GRAD": [grad_to(x, d) for x, d in zip(ins["X"], ins["Out@GRAD"])]}
