"""CUDA twin of kernels/cpu/dropout.py: the mask is drawn on the host with the CPU's generator, so
both devices drop the same units; one elementwise kernel applies it."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import scalar_arg
from ._host import given_cpu_kernel
from ._launch import copy, flat, grid
from .elementwise import scale_after_k
from .launcher import jit_kernel


# -- dropout ----------------------------------------------------------------------------------------


@jit_kernel
def _masked(x, mask, factor, out):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        out[e] = x[e] * mask[e] * factor
        e += step


def _factor(attrs, dtype):
    p = attrs["dropout_prob"]
    up = attrs["dropout_implementation"] == "upscale_in_train" and p < 1.0
    return np.dtype(dtype).type(1.0 / (1.0 - p) if up else 1.0)


def dropout(ins, attrs, cpu_dropout):
    x = ins["X"]
    if attrs["is_test"]:
        p = attrs["dropout_prob"]
        upscale = attrs["dropout_implementation"] == "upscale_in_train"
        return {"Out": copy(x) if upscale else scale_after_k(x, scalar_arg(x.dtype, 1.0 - p), scalar_arg(x.dtype, 0))}
    # The mask comes from the CPU kernel's generator: the same draws as on the CPU.
    seed = None if ins.get("Seed") is None else rt.to_host(ins["Seed"])
    host_mask = cpu_dropout({"X": np.zeros(tuple(x.shape), dtype=np.float32), "Seed": seed}, attrs)["Mask"]
    mask = rt.to_device(host_mask)
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _masked[grid(out.size)](flat(x), flat(mask), _factor(attrs, x.dtype), flat(out))
    return {"Out": out, "Mask": mask}


def dropout_grad(ins, attrs):
    mask, dout = ins["Mask"], ins["Out@GRAD"]
    dx = rt.empty(dout.shape, dout.dtype)
    if dx.size:
        _masked[grid(dx.size)](flat(dout), flat(mask), _factor(attrs, dout.dtype), flat(dx))
    return {"X@GRAD": dx}


HOST_OPS = {"dropout": given_cpu_kernel(dropout)}
