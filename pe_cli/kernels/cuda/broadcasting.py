"""CUDA twins of kernels/cpu/broadcasting.py over the CUDA manipulation kernels: expand_v2 / expand_as_v2 /
broadcast_tensors one strided-copy launch (expand's), their gradients expand_grad's reduction."""

from .manipulation import expand, expand_grad
from ...shapes.broadcasting import target_of
from ..common import expand_to, grad_to


def expand_v2(ins, attrs):
    x = ins["X"]
    return {"Out": expand_to(x, target_of("expand_v2", x.shape, attrs["shape"]), expand)}


def expand_v2_grad(ins, attrs):
    return {"X@GRAD": grad_to(ins["X"], ins["Out@GRAD"], expand_grad)}


def expand_as_v2(ins, attrs):
    x = ins["X"]
    shape = tuple(ins["Y"].shape) if ins.get("Y") is not None else attrs["target_shape"]
    return {"Out": expand_to(x, target_of("expand_as_v2", x.shape, shape), expand)}


expand_as_v2_grad = expand_v2_grad


def broadcast_tensors(ins, attrs):
    import numpy as np

    xs = ins["X"]
    target = np.broadcast_shapes(*[tuple(x.shape) for x in xs])
    return {"Out": [expand_to(x, target, expand) for x in xs]}


def broadcast_tensors_grad(ins, attrs):
    return {"X@GRAD": [grad_to(x, d, expand_grad) for x, d in zip(ins["X"], ins["Out@GRAD"])]}
