"""The meta rules of the RNN-T loss (ops/transducer.py): warprnnt's warprnntgrad of input's shape and dtype and
loss [B] in its dtype, its lattices' alpha and beta [B, T, U + 1] and the loss before its cast (float64) scratch
buffers of the compiled loop (kernels/cpu/transducer.py's "loop"); warprnnt_grad's input@GRAD, warprnntgrad
scaled by each sequence's loss@GRAD, of warprnntgrad's shape and dtype ("scale"). The lengths and labels are
values, checked by the out-kernel on each call (kernels/value_checks.warprnnt_inputs)."""

import numpy as np

from .structured import Meta

_F64 = np.dtype(np.float64)


def warprnnt_meta(attrs, ins, facts):
    """warprnnt: warprnntgrad and loss (above); scratch alpha, beta and loss64; variant "loop"."""
    x = ins["input"]
    shape, dtype = tuple(x.shape), np.dtype(x.dtype)
    outputs = {"warprnntgrad": (shape, dtype), "loss": (shape[:1], dtype)}
    scratch = {"alpha": (shape[:3], _F64), "beta": (shape[:3], _F64), "loss64": (shape[:1], _F64)}
    return Meta(outputs, "loop", scratch=scratch)


def warprnnt_grad_meta(attrs, ins, facts):
    """warprnnt_grad: input@GRAD of warprnntgrad's shape and dtype; variant "scale"."""
    grad = ins["warprnntgrad"]
    return Meta({"input@GRAD": (tuple(grad.shape), np.dtype(grad.dtype))}, "scale")
