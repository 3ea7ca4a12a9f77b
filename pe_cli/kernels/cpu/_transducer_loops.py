"""numba loops of the transducer kernel (kernels/cpu/transducer.py): kernels/transducer_dp.py's
per-sequence program compiled with njit, called once per sequence without the GIL."""

from numba import njit

from .. import transducer_dp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_JIT = dict(cache=True, nogil=True)
_sequence = njit(**_JIT)(transducer_dp.rnnt_sequence)


@njit(**_JIT)
def warprnnt(x, label, t_lens, u_lens, blank, fastemit_lambda, alpha, beta, grad, loss):
    for b in range(loss.size):
        loss[b] = _sequence(x, label, b, t_lens[b], u_lens[b], blank, fastemit_lambda, alpha, beta, grad)
