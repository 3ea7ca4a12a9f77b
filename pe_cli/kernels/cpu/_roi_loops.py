"""numba loops of the RoI kernels (detection_roi.py; imported on first use: see runtime/loops.py): one pass
over the outputs, each element computed by the shared functions of elements/roi.py; the gradients
scatter into dX in the same order, serially.
numba caches the loops beside this file and keys them on it alone: after a change to elements/roi.py,
remove __pycache__/_roi_loops.* (as for any cached loop calling another module's function)."""

import numba

from ..elements.roi import make
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)
_pjit = numba.njit(cache=True, nogil=True, parallel=True)


@_jit
def _add(a, i, v):
    a[i] += v


_E = make(numba.njit(nogil=True), _add, numba.float32)
_roi_pool_at, _roi_align_at, _roi_align_back = _E["roi_pool_at"], _E["roi_align_at"], _E["roi_align_back"]
_psroi_at, _psroi_back, _prroi_at, _prroi_back = _E["psroi_at"], _E["psroi_back"], _E["prroi_at"], _E["prroi_back"]


@numba.njit(cache=True, nogil=True)
def roi_pool(x, rois, bid, c, h, w, ph, pw, scale, out, argmax):
    for i in range(out.size):
        out[i], argmax[i] = _roi_pool_at(x, rois, bid, i, c, h, w, ph, pw, scale)


@numba.njit(cache=True, nogil=True)
def roi_pool_grad(dout, argmax, bid, c, ph, pw, plane, dx):
    for i in range(dout.size):
        if argmax[i] >= 0:
            r = i // (c * ph * pw)
            ch = (i // (ph * pw)) % c
            dx[(bid[r] * c + ch) * plane + argmax[i]] += dout[i]


@numba.njit(cache=True, nogil=True)
def roi_align(x, rois, bid, c, h, w, ph, pw, scale, ratio, aligned, out):
    for i in range(out.size):
        out[i] = _roi_align_at(x, rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned)


@numba.njit(cache=True, nogil=True)
def roi_align_grad(dout, rois, bid, c, h, w, ph, pw, scale, ratio, aligned, dx):
    for i in range(dout.size):
        _roi_align_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned, dx)


@numba.njit(cache=True, nogil=True)
def psroi_pool(x, rois, bid, oc, c, h, w, ph, pw, scale, out):
    for i in range(out.size):
        out[i] = _psroi_at(x, rois, bid, i, oc, c, h, w, ph, pw, scale)


@numba.njit(cache=True, nogil=True)
def psroi_pool_grad(dout, rois, bid, oc, c, h, w, ph, pw, scale, dx):
    for i in range(dout.size):
        _psroi_back(dout[i], rois, bid, i, oc, c, h, w, ph, pw, scale, dx)


@numba.njit(cache=True, nogil=True)
def prroi_pool(x, rois, bid, c, h, w, ph, pw, scale, out):
    for i in range(out.size):
        out[i] = _prroi_at(x, rois, bid, i, c, h, w, ph, pw, scale)


@numba.njit(cache=True, nogil=True)
def prroi_pool_grad(dout, rois, bid, c, h, w, ph, pw, scale, dx):
    for i in range(dout.size):
        _prroi_back(dout[i], rois, bid, i, c, h, w, ph, pw, scale, dx)


# -- parallel twins of the forward loops (outputs are independent): see _numba.twin ---------------


@_pjit
def roi_pool_parallel(x, rois, bid, c, h, w, ph, pw, scale, out, argmax):
    for i in numba.prange(out.size):
        out[i], argmax[i] = _roi_pool_at(x, rois, bid, i, c, h, w, ph, pw, scale)


@_pjit
def roi_align_parallel(x, rois, bid, c, h, w, ph, pw, scale, ratio, aligned, out):
    for i in numba.prange(out.size):
        out[i] = _roi_align_at(x, rois, bid, i, c, h, w, ph, pw, scale, ratio, aligned)


@_pjit
def psroi_pool_parallel(x, rois, bid, oc, c, h, w, ph, pw, scale, out):
    for i in numba.prange(out.size):
        out[i] = _psroi_at(x, rois, bid, i, oc, c, h, w, ph, pw, scale)


@_pjit
def prroi_pool_parallel(x, rois, bid, c, h, w, ph, pw, scale, out):
    for i in numba.prange(out.size):
        out[i] = _prroi_at(x, rois, bid, i, c, h, w, ph, pw, scale)
