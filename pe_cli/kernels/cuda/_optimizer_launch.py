"""How the CUDA update kernels of the optimizer family (optimizer.py, optimizer_layerwise.py) launch:
one-value device arrays in the parameter's dtype (``_as``), the next beta powers on the device
(``_beta_pows``) and one fused launch over a parameter and its state (``_update``)."""

import numpy as np
from numba import cuda

from . import runtime as rt
from ._elementwise import scalar_arg
from ._launch import copy, flat, grid
from .launcher import jit_kernel


def _as(scalar_array, dtype):
    """A one-value device array as 1-D of the parameter's dtype (the CPU casts it the same way)."""
    a = flat(scalar_array)
    return a if a.dtype == np.dtype(dtype) else copy(a, dtype)


@jit_kernel
def _times(src, factor, out):
    if cuda.grid(1) == 0:
        out[0] = src[0] * factor


def beta_pows(b1_in, b2_in, attrs):
    """Beta1PowOut = Beta1Pow * beta1 and Beta2PowOut = Beta2Pow * beta2, on the device."""
    b1_out, b2_out = rt.empty(b1_in.shape, b1_in.dtype), rt.empty(b2_in.shape, b2_in.dtype)
    _times[1, 1, rt.stream()](flat(b1_in), scalar_arg(b1_in.dtype, attrs["beta1"]), flat(b1_out))
    _times[1, 1, rt.stream()](flat(b2_in), scalar_arg(b2_in.dtype, attrs["beta2"]), flat(b2_out))
    return {"Beta1PowOut": b1_out, "Beta2PowOut": b2_out}


def _update(kernel, ins, state, outs, *args):
    """Launches ``kernel(Param, Grad, *state inputs, *args, ParamOut, *state outputs)`` over Param
    and returns ParamOut and the state outputs under the names ``outs``."""
    p = ins["Param"]
    arrays = [rt.empty(p.shape, p.dtype)] + [rt.empty(ins[s].shape, ins[s].dtype) for s in state]
    if p.size:
        kernel[grid(p.size)](
            flat(p), flat(ins["Grad"]), *(flat(ins[s]) for s in state), *args, *(flat(a) for a in arrays)
        )
    return dict(zip(["ParamOut"] + list(outs), arrays))
