"""conv2d's Winograd path for the kernels in convolution.py (the loops: _winograd_loops.py): when it
applies, the filter's transforms, the buffers and the calls.

It applies (shapes/conv2d.winograd_applies, in conv2d's meta rule) to a 3x3 filter at stride 1, without
dilation or groups, each padding 0 to 2, on float32 or float64 where numpy's BLAS is callable
(runtime/cblas.py), when the input and the output both have at least ``WINOGRAD_MIN_CHANNELS`` channels and a
sample has at least ``WINOGRAD_MIN_TILES`` output tiles: with
fewer, the 16 GEMMs [M, C] x [C, tiles] are too thin to beat the one GEMM over C*9 rows of the
wide-columns path (_wide_loops.py; benchmarks/conv_paths.py, docs/PERFORMANCE.md). The input
gradient of such a
convolution is the same kind of convolution, of Output@GRAD by the filter turned 180 degrees with
its input and output channels swapped, paddings 2 - p: the same loop.

The transforms of the filter (U = G g G^T) and back (dW = G^T dU G) are numpy here, the same for
the loops and their replicas.
"""

import numpy as np

from . import _conv, _conv_replicas
from .runtime.loops import lazy, twin

_loops = lazy("_winograd_loops")


def filter_tiles(g):
    """U [16, M, C] = G g G^T for the filters g [M, C, 3, 3], G = [[1, 0, 0], [1/2, 1/2, 1/2],
    [1/2, -1/2, 1/2], [0, 0, 1]]: rows first, then columns."""
    half = g.dtype.type(0.5)
    rows = _g_times(np.moveaxis(g, (2, 3), (0, 1)), half)  # [4, 3, M, C]: G g
    u = _g_times(rows.swapaxes(0, 1), half).swapaxes(0, 1)  # [4, 4, M, C]: (G g) G^T
    return np.ascontiguousarray(u).reshape(16, g.shape[0], g.shape[1])


def _g_times(a, half):
    """G a along the first axis (of length 3)."""
    return np.stack([a[0], (a[0] + a[1] + a[2]) * half, (a[0] - a[1] + a[2]) * half, a[2]])


def filter_from_tiles(du, out):
    """dW [M, C, 3, 3] = G^T dU G for dU [16, M, C], into ``out``: the adjoint of filter_tiles."""
    half = du.dtype.type(0.5)
    d = du.reshape(4, 4, out.shape[0], out.shape[1])
    rows = _gt_times(d, half)  # [3, 4, M, C]: G^T dU
    dw = _gt_times(rows.swapaxes(0, 1), half).swapaxes(0, 1)  # [3, 3, M, C]: G^T dU G
    np.copyto(out, np.moveaxis(dw, (0, 1), (2, 3)))


def _gt_times(a, half):
    """G^T a along the first axis (of length 4)."""
    mid = (a[1] + a[2]) * half
    return np.stack([a[0] + mid, (a[1] - a[2]) * half, mid + a[3]])


def tile_rows(ho, wo):
    """(th, w1): the rows of 2x2 tiles over a [ho, wo] output and the tiles in each row, one more
    than cover it (the parity planes' row length, see _winograd_loops.py)."""
    return (ho + 1) // 2, (wo + 1) // 2 + 1


def buffers(par, th, w1, c, m, dtype):
    """Per thread: the parity planes [4, (th + 1) w1 + 1] (zeroed: their last element is read as
    padding), the row pass [8, th w1 + 1], V [16, C, th w1] and the products [16, M, th w1]."""
    n = th * w1
    return (
        np.zeros((par, 4, n + w1 + 1), dtype=dtype),
        np.empty((par, 8, n + 1), dtype=dtype),
        np.empty((par, 16, c, n), dtype=dtype),
        np.empty((par, 16, m, n), dtype=dtype),
    )


def _forward(gemm, x, u, pt, pl, out):
    th, w1 = tile_rows(out.shape[2], out.shape[3])
    par = _conv.parallel(x.shape[0])
    args = (gemm, x, u, pt, pl, th, out, *buffers(par, th, w1, x.shape[1], u.shape[1], x.dtype))
    twin(_loops().forward, _loops().forward_parallel, par > 1, *args, replica=_conv_replicas.winograd_forward)(*args)


def conv2d(gemm, x, w, geo, out):
    """Output [N, M, Ho, Wo] into ``out`` (x, w C-contiguous)."""
    _forward(gemm, x, filter_tiles(w), geo.pads[0], geo.pads[2], out)


def grad_input(gemm, dout, w, geo, out):
    """Input@GRAD [N, C, H, W] into ``out``: Output@GRAD convolved by the filter turned 180 degrees, [C, M, 3, 3]."""
    u = filter_tiles(np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)))
    _forward(gemm, dout, u, 2 - geo.pads[0], 2 - geo.pads[2], out)


def grad_filter(gemm, x, dout, geo, out):
    """Filter@GRAD [M, C, 3, 3] into ``out``: the transformed gradient summed in fixed runs of samples (as the
    im2col path: _conv.FILTER_RUNS), the runs added in order, then transformed back."""
    w_shape = out.shape
    n, (th, w1) = x.shape[0], tile_rows(geo.ho, geo.wo)
    par = _conv.parallel(n)
    parts = np.zeros((min(_conv.FILTER_RUNS, n), 16, w_shape[0], w_shape[1]), dtype=x.dtype)
    args = (gemm, x, dout, geo.pads[0], geo.pads[2], th, parts, *buffers(par, th, w1, x.shape[1], w_shape[0], x.dtype))
    twin(
        _loops().grad_filter, _loops().grad_filter_parallel, par > 1, *args, replica=_conv_replicas.winograd_grad_filter
    )(*args)
    du = parts[0] if len(parts) == 1 else np.add.reduce(parts, axis=0)
    filter_from_tiles(du, out)
