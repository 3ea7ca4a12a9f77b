"""CUDA twin of kernels/cpu/transducer.py: the same per-sequence program (kernels/transducer_dp.py) as
a device function, one thread per sequence; lengths and labels checked on the host (they are small)."""

import numpy as np
from numba import cuda

from .. import transducer_dp
from . import runtime as rt
from ._launch import grid, scale_rows, zeros
from .launcher import jit_kernel
from ..value_checks import warprnnt_inputs

_sequence = cuda.jit(device=True)(transducer_dp.rnnt_sequence)


@jit_kernel
def _warprnnt(x, label, t_lens, u_lens, blank, fastemit_lambda, alpha, beta, grad, loss):
    b = cuda.grid(1)
    step = cuda.gridsize(1)
    while b < loss.size:
        loss[b] = _sequence(x, label, b, t_lens[b], u_lens[b], blank, fastemit_lambda, alpha, beta, grad)
        b += step


def warprnnt(ins, attrs):
    x = ins["input"]
    label, t_lens, u_lens = warprnnt_inputs(
        tuple(x.shape),
        rt.to_host(ins["label"]),
        rt.to_host(ins["input_lengths"]),
        rt.to_host(ins["label_lengths"]),
        attrs["blank"],
    )
    grad = zeros(x.shape, x.dtype)
    alpha, beta = rt.empty(tuple(x.shape[:3]), np.float64), rt.empty(tuple(x.shape[:3]), np.float64)
    loss = rt.empty((x.shape[0],), np.float64)
    if loss.size:
        _warprnnt[grid(loss.size)](
            x,
            rt.to_device(np.ascontiguousarray(label)),
            rt.to_device(t_lens),
            rt.to_device(u_lens),
            int(attrs["blank"]),
            float(attrs["fastemit_lambda"]),
            alpha,
            beta,
            grad,
            loss,
        )
    return {"loss": rt.to_device(rt.to_host(loss).astype(x.dtype)), "warprnntgrad": grad}


def warprnnt_grad(ins, attrs):
    return {"input@GRAD": scale_rows(ins["warprnntgrad"], ins["loss@GRAD"])}
