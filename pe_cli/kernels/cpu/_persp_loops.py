"""numba loops of the roi_perspective_transform kernels (detection_roi.py; imported on first use:
see runtime/loops.py): one pass over the outputs, each element by elements/perspective.py's functions.
numba caches the loops beside this file and keys them on it alone: after a change to elements/perspective.py,
remove __pycache__/_persp_loops.* (as for any cached loop calling another module's function)."""

import numba

from ..elements.perspective import make
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)


@numba.njit(cache=True, nogil=True)
def _add(a, i, v):
    a[i] += v


_E = make(numba.njit(nogil=True), _add)
_at, _back = _E["at"], _E["back"]


@numba.njit(cache=True, nogil=True)
def forward(x, rois, m, bid, c, h, w, th, tw, scale, out, mask):
    for o in range(out.size):
        out[o], ok = _at(x, rois, m, bid, o, c, h, w, th, tw, scale)
        if o % (th * tw * c) < th * tw:  # channel 0: the pixel's mask
            mask[(o // (th * tw * c)) * th * tw + o % (th * tw)] = ok


@numba.njit(cache=True, nogil=True)
def backward(dout, rois, m, bid, c, h, w, th, tw, scale, dx):
    for o in range(dout.size):
        _back(dout[o], rois, m, bid, o, c, h, w, th, tw, scale, dx)
