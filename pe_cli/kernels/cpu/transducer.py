"""CPU kernels of ops/transducer.py: the numba-compiled per-sequence program (_transducer_loops.py)
over the batch. ``warprnnt_inputs`` (kernels/value_checks.py: the lengths and labels checked against the input's
shape) is shared with CUDA."""

import numpy as np

from .runtime.loops import lazy
from ..value_checks import warprnnt_inputs

_loops = lazy("_transducer_loops")


def warprnnt(ins, attrs):
    x = np.ascontiguousarray(ins["input"])
    label, t_lens, u_lens = warprnnt_inputs(
        x.shape, ins["label"], ins["input_lengths"], ins["label_lengths"], attrs["blank"]
    )
    grad = np.zeros(x.shape, x.dtype)
    alpha, beta = np.empty(x.shape[:3], np.float64), np.empty(x.shape[:3], np.float64)
    loss = np.empty(x.shape[0], np.float64)
    _loops().warprnnt(
        x,
        np.ascontiguousarray(label),
        t_lens,
        u_lens,
        int(attrs["blank"]),
        float(attrs["fastemit_lambda"]),
        alpha,
        beta,
        grad,
        loss,
    )
    return {"loss": loss.astype(x.dtype), "warprnntgrad": grad}


def warprnnt_grad(ins, attrs):
    grad, dloss = ins["warprnntgrad"], np.asarray(ins["loss@GRAD"])
    return {"input@GRAD": (grad * dloss.reshape(-1, 1, 1, 1)).astype(grad.dtype, copy=False)}
