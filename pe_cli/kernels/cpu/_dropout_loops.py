"""numba loops of dropout in a planned step (kernels/cpu/dropout.py; imported on first use: see
runtime/loops.py). In training the uniforms come drawn: the plan draws them before the segment runs,
from the op's Generator, as the out-kernel does (executor/segment.py, ``Launch.draw``). Arrays come
flat and C-contiguous; arithmetic is numpy's, one rounding a multiply."""

import numba

from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)


@_jit
def kept_times(x, draws, p, scale, scaled, out, mask):
    """mask = draws >= p (float32, as uint8 0 or 1); out = x * mask (the mask as x's dtype: -0.0 for a
    dropped negative value, NaN for a dropped inf), then times ``scale`` (x's dtype) where ``scaled``:
    dropout's comparison and its two numpy multiplies in training."""
    one, zero = x.dtype.type(1), x.dtype.type(0)
    for i in range(x.size):
        kept = draws[i] >= p
        mask[i] = 1 if kept else 0
        v = x[i] * (one if kept else zero)
        out[i] = v * scale if scaled else v


@_jit
def times(x, factor, out):
    """out = x * factor (x's dtype): dropout's downgrade_in_infer at test time, numpy's multiply."""
    for i in range(x.size):
        out[i] = x[i] * factor
