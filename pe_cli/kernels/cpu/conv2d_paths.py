"""The paths of conv2d and its two gradients on the CPU (convolution.py holds the kernels): ``conv_path``
picks one for a geometry and the arrays' dtypes, in the order below, and the forward and both gradients
follow that one pick, each direction's code for it in its table (FORWARD, GRAD_FILTER, GRAD_INPUT)."""

import numpy as np

from .runtime import threads
from .runtime import cblas, onednn as _onednn
from . import _conv, _winograd
from .runtime.loops import is_float, lazy

_loops = lazy("_conv_loops")

# The paths, in the order they are tried. ``conv_path`` picks one for a geometry and the arrays' dtypes,
# and conv2d and both its gradients follow the same pick: the order is written here once.
ONEDNN = "onednn"  # oneDNN's direct convolution (float32, enough channels, the onednn extra)
WINOGRAD = "winograd"  # Winograd's F(2x2, 3x3), float32/float64 with a CBLAS GEMM (_winograd.py)
PER_SAMPLE = "per_sample"  # im2col + GEMM per sample in one numba loop (_conv.py, _conv_loops.py)
COLUMNS = "columns"  # float32/float64 without a CBLAS GEMM: the batch's columns, one numpy.matmul
NUMPY = "numpy"  # other dtypes: one strided im2col copy and one GEMM (_conv.py)


def conv_path(geo, x, w, *grads):
    """The path of conv2d (and of its gradients, given Output@GRAD) over Input ``x`` and Filter ``w`` of
    geometry ``geo`` (a regular convolution: see ``_regular``). oneDNN may still decline a plan at run time
    (its ``conv2d``/``grad_*`` return None); the kernel then takes ``after_onednn(...)``."""
    return _pick(geo, x, w, grads, onednn=True)


def _pick(geo, x, w, grads, onednn):
    if onednn and _onednn.applies(x, w, *grads):
        return ONEDNN
    if not is_float(x, w, *grads):
        return NUMPY
    if cblas.gemm(x.dtype) is None:
        return COLUMNS
    return WINOGRAD if _winograd.applies(geo, x.shape, w.shape) else PER_SAMPLE


def after_onednn(geo, x, w, *grads):
    return _pick(geo, x, w, grads, onednn=False)


def _forward_winograd(x, w, geo):
    return _winograd.conv2d(cblas.gemm(x.dtype), np.ascontiguousarray(x), np.ascontiguousarray(w), geo)


def _forward_per_sample(x, w, geo):
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    out = np.empty((x.shape[0], w.shape[0], geo.ho, geo.wo), dtype=x.dtype)
    _conv.per_sample("forward", cblas.gemm(x.dtype), x, w, out, geo, x, w.shape[0])
    return out


def _forward_columns(x, w, geo):
    threads.for_gemm(geo.gemm_macs(w.shape))
    cols = _conv.cols(x, geo)  # [N, G, K/G, L]
    out = np.matmul(w.reshape(geo.groups, w.shape[0] // geo.groups, -1), cols)  # [N, G, M/G, L]
    return out.reshape(x.shape[0], w.shape[0], geo.ho, geo.wo)


def _forward_numpy(x, w, geo):
    n, m = x.shape[0], w.shape[0]
    cols = _conv.im2col(x, geo)
    out = np.matmul(w.reshape(geo.groups, m // geo.groups, -1), cols)  # [G, M/G, N*Ho*Wo]
    out = out.reshape(m, n, geo.ho, geo.wo).transpose(1, 0, 2, 3)
    return np.ascontiguousarray(out, dtype=x.dtype)


FORWARD = {
    WINOGRAD: _forward_winograd,
    PER_SAMPLE: _forward_per_sample,
    COLUMNS: _forward_columns,
    NUMPY: _forward_numpy,
}


def _grad_filter_winograd(x, w, dout, geo):
    x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
    return _winograd.grad_filter(cblas.gemm(x.dtype), x, dout, geo, w.shape)


def _grad_filter_per_sample(x, w, dout, geo):
    x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
    # one sum per fixed run of samples, whatever the threads: the same bits serial or parallel
    parts = np.zeros((min(_conv.FILTER_RUNS, x.shape[0]), w.shape[0], w[0].size), dtype=x.dtype)
    _conv.per_sample("grad_filter", cblas.gemm(x.dtype), x, dout, parts, geo, x, w.shape[0])
    dw = parts[0] if len(parts) == 1 else np.add.reduce(parts, axis=0)
    return dw.reshape(w.shape)


def _grad_filter_columns(x, w, dout, geo):
    threads.for_gemm(geo.gemm_macs(w.shape))
    cols = _conv.cols(x, geo)
    per_sample = np.matmul(_conv.dout_per_sample(dout, geo), cols.swapaxes(-1, -2))  # [N, G, M/G, K/G]
    return np.add.reduce(per_sample, axis=0).reshape(w.shape)


def _grad_filter_numpy(x, w, dout, geo):
    cols = _conv.im2col(x, geo)
    dw = np.matmul(_conv.out_as_matrix(dout, geo), cols.transpose(0, 2, 1))  # [G, M/G, C/G*kh*kw]
    return dw.reshape(w.shape).astype(w.dtype, copy=False)


GRAD_FILTER = {
    WINOGRAD: _grad_filter_winograd,
    PER_SAMPLE: _grad_filter_per_sample,
    COLUMNS: _grad_filter_columns,
    NUMPY: _grad_filter_numpy,
}


def _grad_input_winograd(x, w, dout, geo):
    w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
    return _winograd.grad_input(cblas.gemm(x.dtype), dout, w, geo, x.shape)


def _grad_input_per_sample(x, w, dout, geo):
    w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
    dx = np.empty(x.shape, dtype=x.dtype)
    _conv.per_sample("grad_input", cblas.gemm(x.dtype), dout, w, dx, geo, x, w.shape[0])
    return dx


def _grad_input_columns(x, w, dout, geo):
    threads.for_gemm(geo.gemm_macs(w.shape))
    wmat = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    dcols = np.matmul(wmat.swapaxes(1, 2), _conv.dout_per_sample(dout, geo))  # [N, G, K/G, L]
    if geo.is_pointwise():
        return dcols.reshape(x.shape)
    dx = np.empty(x.shape, dtype=x.dtype)
    _loops().col2im(
        dcols.reshape(x.shape[0], -1, geo.ho * geo.wo),
        geo.kh,
        geo.kw,
        geo.sh,
        geo.sw,
        geo.pads[0],
        geo.pads[2],
        geo.dh,
        geo.dw,
        geo.ho,
        geo.wo,
        dx,
    )
    return dx


def _grad_input_numpy(x, w, dout, geo):
    wmat = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    dcols = np.matmul(wmat.transpose(0, 2, 1), _conv.out_as_matrix(dout, geo))  # [G, C/G*kh*kw, N*Ho*Wo]
    return _conv.col2im(dcols, geo, x.shape, x.dtype)


GRAD_INPUT = {
    WINOGRAD: _grad_input_winograd,
    PER_SAMPLE: _grad_input_per_sample,
    COLUMNS: _grad_input_columns,
    NUMPY: _grad_input_numpy,
}
