"""The paths of conv2d and its two gradients on the CPU (convolution.py holds the out-kernels): each direction's
code for each path (FORWARD, GRAD_FILTER, GRAD_INPUT), computing into the buffer it is handed. Which path a
convolution takes is its meta rule's (shapes/conv2d.py), once per shape signature; ``host_path`` reads the one
fact of the host that rule leaves to the kernels: whether the loops can call numpy's BLAS."""

import numpy as np

from .runtime import threads
from .runtime import cblas
from . import _conv, _winograd
from .runtime.loops import lazy
from ...shapes.conv2d import COLUMNS, NUMPY, PER_SAMPLE, WINOGRAD

_loops = lazy("_conv_loops")


def host_path(path, dtype):
    """``path`` (a meta rule's) as this host runs it: the loops' paths take the batch's columns and one
    numpy.matmul where numpy's BLAS cannot be called from them (runtime/cblas.py)."""
    if path in (WINOGRAD, PER_SAMPLE) and cblas.gemm(dtype) is None:
        return COLUMNS
    return path


def _forward_winograd(x, w, geo, out):
    _winograd.conv2d(cblas.gemm(x.dtype), np.ascontiguousarray(x), np.ascontiguousarray(w), geo, out)


def _forward_per_sample(x, w, geo, out):
    x, w = np.ascontiguousarray(x), np.ascontiguousarray(w)
    _conv.per_sample("forward", cblas.gemm(x.dtype), x, w, out, geo, x, w.shape[0])


def _forward_columns(x, w, geo, out):
    threads.for_gemm(geo.gemm_macs(w.shape))
    cols = _conv.cols(x, geo)  # [N, G, K/G, L]
    wmat = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    np.matmul(wmat, cols, out=out.reshape(x.shape[0], geo.groups, w.shape[0] // geo.groups, -1))  # [N, G, M/G, L]


def _forward_numpy(x, w, geo, out):
    n, m = x.shape[0], w.shape[0]
    cols = _conv.im2col(x, geo)
    prod = np.matmul(w.reshape(geo.groups, m // geo.groups, -1), cols)  # [G, M/G, N*Ho*Wo]
    np.copyto(out, prod.reshape(m, n, geo.ho, geo.wo).transpose(1, 0, 2, 3), casting="unsafe")


FORWARD = {
    WINOGRAD: _forward_winograd,
    PER_SAMPLE: _forward_per_sample,
    COLUMNS: _forward_columns,
    NUMPY: _forward_numpy,
}


def _grad_filter_winograd(x, dout, geo, out):
    x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
    _winograd.grad_filter(cblas.gemm(x.dtype), x, dout, geo, out)


def filter_runs(n, m, size, dtype):
    """The filter gradient's runs, zeroed: one sum per fixed run of the n samples, whatever the threads (the
    same bits serial or parallel), [runs, M, C/G*kh*kw]."""
    return np.zeros((min(_conv.FILTER_RUNS, n), m, size), dtype=dtype)


def _grad_filter_per_sample(x, dout, geo, out):
    x, dout = np.ascontiguousarray(x), np.ascontiguousarray(dout)
    m = out.shape[0]
    parts = filter_runs(x.shape[0], m, out[0].size, x.dtype)
    _conv.per_sample("grad_filter", cblas.gemm(x.dtype), x, dout, parts, geo, x, m)
    _loops().sum_runs(parts, out.reshape(-1))  # (the runs' sums added in order: numpy's add.reduce's bits)


def _grad_filter_columns(x, dout, geo, out):
    threads.for_gemm(geo.gemm_macs(out.shape))
    cols = _conv.cols(x, geo)
    per_sample = np.matmul(_conv.dout_per_sample(dout, geo), cols.swapaxes(-1, -2))  # [N, G, M/G, K/G]
    np.add.reduce(per_sample, axis=0, out=out.reshape(per_sample.shape[1:]))


def _grad_filter_numpy(x, dout, geo, out):
    cols = _conv.im2col(x, geo)
    dw = np.matmul(_conv.out_as_matrix(dout, geo), cols.transpose(0, 2, 1))  # [G, M/G, C/G*kh*kw]
    np.copyto(out, dw.reshape(out.shape), casting="unsafe")


GRAD_FILTER = {
    WINOGRAD: _grad_filter_winograd,
    PER_SAMPLE: _grad_filter_per_sample,
    COLUMNS: _grad_filter_columns,
    NUMPY: _grad_filter_numpy,
}


def _grad_input_winograd(w, dout, geo, out):
    w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
    _winograd.grad_input(cblas.gemm(dout.dtype), dout, w, geo, out)


def _grad_input_per_sample(w, dout, geo, out):
    w, dout = np.ascontiguousarray(w), np.ascontiguousarray(dout)
    _conv.per_sample("grad_input", cblas.gemm(out.dtype), dout, w, out, geo, out, w.shape[0])


def _grad_input_columns(w, dout, geo, out):
    threads.for_gemm(geo.gemm_macs(w.shape))
    wmat = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    n = out.shape[0]
    if geo.is_pointwise():
        np.matmul(
            wmat.swapaxes(1, 2), _conv.dout_per_sample(dout, geo), out=out.reshape(n, geo.groups, -1, geo.ho * geo.wo)
        )
        return
    dcols = np.matmul(wmat.swapaxes(1, 2), _conv.dout_per_sample(dout, geo))  # [N, G, K/G, L]
    _loops().col2im(
        dcols.reshape(n, -1, geo.ho * geo.wo),
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
        out,
    )


def _grad_input_numpy(w, dout, geo, out):
    wmat = w.reshape(geo.groups, w.shape[0] // geo.groups, -1)
    dcols = np.matmul(wmat.transpose(0, 2, 1), _conv.out_as_matrix(dout, geo))  # [G, C/G*kh*kw, N*Ho*Wo]
    _conv.col2im(dcols, geo, out)


GRAD_INPUT = {
    WINOGRAD: _grad_input_winograd,
    PER_SAMPLE: _grad_input_per_sample,
    COLUMNS: _grad_input_columns,
    NUMPY: _grad_input_numpy,
}
