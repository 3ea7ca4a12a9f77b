"""numba loops of the CRF kernels (kernels/cpu/crf.py): kernels/seq_dp.py's per-sequence programs
compiled with njit, called once per sequence without the GIL."""

from numba import njit

from .. import seq_dp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_JIT = dict(cache=True, nogil=True)
_forward = njit(**_JIT)(seq_dp.crf_forward)
_backward = njit(**_JIT)(seq_dp.crf_backward)
_viterbi = njit(**_JIT)(seq_dp.viterbi)


@njit(**_JIT)
def crf_forward(x, xexp, rowmax, w, wexp, label, starts, ends, alpha, ll):
    for s in range(starts.size):
        if ends[s] > starts[s]:
            ll[s] = _forward(x, xexp, rowmax, w, wexp, label, starts[s], ends[s], alpha)
        else:
            ll[s] = 0.0


@njit(**_JIT)
def crf_backward(xexp, wexp, alpha, label, starts, ends, dll, beta, dx, dw):
    for s in range(starts.size):
        if ends[s] > starts[s]:
            _backward(xexp, wexp, alpha, label, starts[s], ends[s], dll[s], beta, dx, dw, s)


@njit(**_JIT)
def viterbi(x, w, starts, ends, score, track, path):
    for s in range(starts.size):
        if ends[s] > starts[s]:
            _viterbi(x, w, starts[s], ends[s], score, track, path)
