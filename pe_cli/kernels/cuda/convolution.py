"""CUDA twins of kernels/cpu/convolution.py.

conv2d is im2col + the tiled matmul (batched over groups), as on the CPU; its input gradient is the
transposed product followed by col2im written as a gather (each input element sums the columns
that read it: deterministic, no atomics). The device code is in _conv.py; this module launches it.
conv2d_transpose is the CPU's role swap over these kernels; deformable_conv runs the CPU kernels on
the host.
"""

from numba import cuda

from ...shapes.conv_plans import ConvGeometry
from ..conv_transpose import transpose_kernels
from ..fused_math import both_grads, relu_first
from . import activation
from . import runtime as rt
from . import _conv
from ._host import host_ops
from ._launch import flat, grid, zeros
from ._strided import contiguous_strides, copy_window
from ._matmul import matmul
from .launcher import jit_kernel

# -- conv2d -----------------------------------------------------------------------------------------


def _geometry(x, w, attrs):
    return ConvGeometry(tuple(x.shape), tuple(w.shape), attrs)


def _conv2d(ins, attrs):
    x, w = ins["Input"], ins["Filter"]
    geo = _geometry(x, w, attrs)
    n, m = x.shape[0], w.shape[0]
    out = matmul(w.reshape((geo.groups, m // geo.groups, w.size // m)), _conv.columns(x, geo))  # [G, M/G, N*Ho*Wo]
    return {"Output": _conv.swap01(out.reshape((m, n, geo.ho, geo.wo)))}


def _conv2d_grad_filter(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    dw = matmul(_conv.dout_matrix(dout, geo), _conv.columns(x, geo), trans_b=True)  # [G, M/G, C/G*kh*kw]
    return {"Filter@GRAD": dw.reshape(tuple(w.shape))}


def _conv2d_grad_input(ins, attrs):
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    geo = _geometry(x, w, attrs)
    n, c, h, wd = x.shape
    m = w.shape[0]
    wmat = w.reshape((geo.groups, m // geo.groups, w.size // m))
    dcols = matmul(wmat, _conv.dout_matrix(dout, geo), trans_a=True)  # [G, C/G*kh*kw, N*Ho*Wo]
    dx = rt.empty(x.shape, x.dtype)
    _conv.col2im[grid(dx.size)](
        flat(dcols),
        flat(dx),
        c,
        h,
        wd,
        geo.kh,
        geo.kw,
        geo.sh,
        geo.sw,
        geo.dh,
        geo.dw,
        geo.pads[0],
        geo.pads[2],
        n,
        geo.ho,
        geo.wo,
    )
    return {"Input@GRAD": dx}


conv2d, conv2d_grad_input, conv2d_grad_filter = relu_first(activation, _conv2d, _conv2d_grad_input, _conv2d_grad_filter)
conv2d_grad = both_grads(conv2d_grad_input, conv2d_grad_filter)


# -- conv2d_transpose: the CPU's role swap over the CUDA conv2d kernels -----------------------------


def _take_channels(a, k, axis):
    """As the CPU's take_channels: a's first k entries along ``axis``, a new contiguous array."""
    shape = tuple(a.shape)
    out_shape = shape[:axis] + (k,) + shape[axis + 1 :]
    out = rt.empty(out_shape, a.dtype)
    copy_window(a, out, out_shape, contiguous_strides(shape), contiguous_strides(out_shape))
    return out


def _put_channels(a, shape, axis):
    """As the CPU's put_channels: a in zeros of ``shape``, at the start of ``axis``."""
    out = zeros(shape, a.dtype)
    copy_window(a, out, tuple(a.shape), contiguous_strides(tuple(a.shape)), contiguous_strides(shape))
    return out


conv2d_transpose, conv2d_transpose_grad_input, conv2d_transpose_grad_filter = transpose_kernels(
    conv2d, conv2d_grad_input, conv2d_grad_filter, _take_channels, _put_channels
)
conv2d_transpose_grad = both_grads(conv2d_transpose_grad_input, conv2d_transpose_grad_filter)


# -- deformable_conv: the CPU kernels run on the host, the results copied over (a device im2col for
# deformable taps is not written yet) --------------------------------------------------------------

HOST_OPS = host_ops("deformable_conv", "deformable_conv_grad")


# -- conv_shift: one thread per output element (each sums its N taps in order) ----------------------


@jit_kernel
def _conv_shift(x, y, out, m, n, sign):
    """out[k, i] = sum_j x[k, (i + sign * (j - h)) mod m] * y[k, j]: the forward (sign 1) and X's gradient
    (sign -1, x = Out@GRAD)."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    h = (n - 1) // 2
    while t < out.size:
        k, i = t // m, t % m
        acc = 0.0
        for j in range(n):
            acc += x[k * m + (i + sign * (j - h) + 2 * m) % m] * y[k * n + j]
        out[t] = acc
        t += step


@jit_kernel
def _conv_shift_dy(x, dout, dy, m, n):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    h = (n - 1) // 2
    while t < dy.size:
        k, j = t // n, t % n
        acc = 0.0
        for i in range(m):
            acc += x[k * m + (i + j - h + m) % m] * dout[k * m + i]
        dy[t] = acc
        t += step


def conv_shift(ins, attrs):
    x, y = ins["X"], ins["Y"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _conv_shift[grid(out.size)](flat(x), flat(y), flat(out), x.shape[1], y.shape[1], 1)
    return {"Out": out}


def conv_shift_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    m, n = x.shape[1], y.shape[1]
    dx, dy = rt.empty(x.shape, x.dtype), rt.empty(y.shape, y.dtype)
    if dx.size:
        _conv_shift[grid(dx.size)](flat(dout), flat(y), flat(dx), m, n, -1)
        _conv_shift_dy[grid(dy.size)](flat(x), flat(dout), flat(dy), m, n)
    return {"X@GRAD": dx, "Y@GRAD": dy}
