"""numba loops of the deformable_psroi_pooling kernels (detection_roi.py; imported on first use:
see runtime/loops.py): one pass over the outputs, each element by elements/deform_roi.py's functions.
numba caches the loops beside this file and keys them on it alone: after a change to elements/deform_roi.py,
remove __pycache__/_deform_roi_loops.* (as for any cached loop calling another module's function)."""

import numba

from ..elements.deform_roi import make
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@numba.njit(cache=True, nogil=True)
def _add(a, i, v):
    a[i] += v


_E = make(numba.njit(nogil=True), _add)
_at, _back = _E["at"], _E["back"]


@numba.njit(cache=True, nogil=True)
def forward(x, rois, trans, bid, g, scale, tstd, out, count):
    for i in range(out.size):
        out[i], count[i] = _at(x, rois, trans, bid, i, g, scale, tstd)


@numba.njit(cache=True, nogil=True)
def backward(dout, x, rois, trans, bid, g, scale, tstd, dx, dtrans):
    for i in range(dout.size):
        _back(dout[i], x, rois, trans, bid, i, g, scale, tstd, dx, dtrans)
