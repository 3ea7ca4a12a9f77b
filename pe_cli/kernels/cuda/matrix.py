"""The matrix family on a GPU (ops/matrix.py): addmm and bmm through the tiled matmul kernel (_matmul.py),
dot as a product and a row sum, cross one thread per 3-vector, kron one thread per output element (its
gradient one thread per input element, summing that element's block), trace a strided copy of the
diagonals (_strided.py) and a row sum; bilinear_tensor_product the CPU kernels on the host."""

from numba import cuda

from ...base.errors import PeError
from ...shapes.matrix import addmm_mismatch, cross_dim, cross_mismatch, diagonal
from . import runtime as rt
from ._elementwise import Binary, Unary, conj, scalar_arg
from ._launch import flat, grid, zeros
from ._matmul import matmul
from ._reduce import reduce, sum_to_shape
from ._host import host_ops
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel
from ..context import NO_CONTEXT


@cuda.jit(device=True, inline=True)
def _add_scaled(a, b, p, q):
    return a + p * b


@cuda.jit(device=True, inline=True)
def _times(a, b, p, q):
    return a * b


@cuda.jit(device=True, inline=True)
def _scaled(a, p, q):
    return a * p


_ADD_SCALED, _MUL, _SCALE = Binary(_add_scaled), Binary(_times), Unary(_scaled)


def addmm(ins, attrs):
    inp, x, y = ins["Input"], ins["X"], ins["Y"]
    if error := addmm_mismatch(tuple(inp.shape), tuple(x.shape), tuple(y.shape)):
        raise PeError(f"addmm: {error}")
    product = matmul(x, y, alpha=float(attrs["Alpha"]))
    return {"Out": _ADD_SCALED(product, inp, scalar_arg(x.dtype, attrs["Beta"]))}


def addmm_grad(ins, attrs):
    inp, x, y, dout = ins["Input"], ins["X"], ins["Y"], ins["Out@GRAD"]
    alpha = float(attrs["Alpha"])
    return {
        "Input@GRAD": _SCALE(sum_to_shape(dout, tuple(inp.shape)), scalar_arg(dout.dtype, attrs["Beta"])),
        "X@GRAD": matmul(dout, conj(y), trans_b=True, alpha=alpha),
        "Y@GRAD": matmul(conj(x), dout, trans_a=True, alpha=alpha),
    }


def bmm(ins, attrs):
    return {"Out": matmul(ins["X"], ins["Y"])}


def bmm_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    # complex: dX = dOut @ conj(Y)^T, dY = conj(X)^T @ dOut (kernels/common.py conj)
    return {"X@GRAD": matmul(dout, conj(y), trans_b=True), "Y@GRAD": matmul(conj(x), dout, trans_a=True)}


def dot(ins, attrs, ctx=NO_CONTEXT):
    x, y = ins["X"], ins["Y"]
    out = reduce(_MUL(x, y), (x.ndim - 1,), "sum", keepdims=True)
    return {"Out": out.reshape(tuple(x.shape[:-1])) if ctx.paddle2 else out}


def dot_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    dout = dout.reshape(tuple(x.shape[:-1]) + (1,))
    return {"X@GRAD": _MUL(dout, conj(y), shape=x.shape), "Y@GRAD": _MUL(dout, conj(x), shape=y.shape)}


# -- cross: one thread per 3-vector -------------------------------------------------------------


@jit_kernel
def _cross(x, y, out, inner, n):
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    while t < n:
        base = (t // inner) * 3 * inner + t % inner
        a0, a1, a2 = x[base], x[base + inner], x[base + 2 * inner]
        b0, b1, b2 = y[base], y[base + inner], y[base + 2 * inner]
        out[base] = a1 * b2 - a2 * b1
        out[base + inner] = a2 * b0 - a0 * b2
        out[base + 2 * inner] = a0 * b1 - a1 * b0
        t += step


def _cross_of(x, y, dim):
    out = rt.empty(tuple(x.shape), x.dtype)
    inner = 1
    for n in x.shape[dim + 1 :]:
        inner *= n
    if out.size:
        _cross[grid(out.size // 3)](flat(x), flat(y), flat(out), inner, out.size // 3)
    return out


def cross(ins, attrs):
    x, y = ins["X"], ins["Y"]
    if error := cross_mismatch(tuple(x.shape), tuple(y.shape)):
        raise ValueError(f"cross: {error}")
    return {"Out": _cross_of(x, y, cross_dim(tuple(x.shape), attrs["dim"]))}


def cross_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    dim = cross_dim(tuple(x.shape), attrs["dim"])
    return {"X@GRAD": _cross_of(y, dout, dim), "Y@GRAD": _cross_of(dout, x, dim)}


# -- kron ---------------------------------------------------------------------------------------


@jit_kernel
def _kron(x, y, out, xdims, ydims):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        k, xo, yo, xs, ys = i, 0, 0, 1, 1
        for d in range(len(xdims) - 1, -1, -1):
            c = k % (xdims[d] * ydims[d])
            k //= xdims[d] * ydims[d]
            xo += (c // ydims[d]) * xs
            yo += (c % ydims[d]) * ys
            xs *= xdims[d]
            ys *= ydims[d]
        out[i] = x[xo] * y[yo]
        i += step


@jit_kernel
def _kron_grad(other, dout, grad, dims, other_dims, is_x):
    """grad[e] = sum over the elements o of ``other`` of dout[at(e, o)] * conj(other[o]) (Paddle's complex gradient)."""
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < grad.size:
        acc = dout[0] - dout[0]
        for o in range(other.size):
            ke, ko, off, scale = e, o, 0, 1
            for d in range(len(dims) - 1, -1, -1):
                ce, co = ke % dims[d], ko % other_dims[d]
                ke //= dims[d]
                ko //= other_dims[d]
                c = ce * other_dims[d] + co if is_x else co * dims[d] + ce
                off += c * scale
                scale *= dims[d] * other_dims[d]
            acc += dout[off] * other[o].conjugate()
        grad[e] = acc
        e += step


def _kron_dims(x, y):
    rank = max(x.ndim, y.ndim)
    return ((1,) * (rank - x.ndim) + tuple(x.shape)), ((1,) * (rank - y.ndim) + tuple(y.shape))


def kron(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xd, yd = _kron_dims(x, y)
    out = rt.empty(tuple(a * b for a, b in zip(xd, yd)), x.dtype)
    if out.size:
        _kron[grid(out.size)](flat(x), flat(y), flat(out), xd, yd)
    return {"Out": out}


def kron_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xd, yd = _kron_dims(x, y)
    dx, dy = rt.empty(tuple(x.shape), x.dtype), rt.empty(tuple(y.shape), y.dtype)
    if dx.size and dy.size:
        _kron_grad[grid(dx.size)](flat(y), flat(dout), flat(dx), xd, yd, True)
        _kron_grad[grid(dy.size)](flat(x), flat(dout), flat(dy), yd, xd, False)
    return {"X@GRAD": dx, "Y@GRAD": dy}


# -- trace: the diagonals as a strided window ---------------------------------------------------


def _diagonal_window(shape, attrs):
    """(dims, strides, base) of the window of Input whose last dim walks each plane's diagonal."""
    (lo, hi), row, col, n = diagonal(shape, attrs)
    strides = contiguous_strides(shape)
    keep = [d for d in range(len(shape)) if d not in (lo, hi)]
    dims = tuple(shape[d] for d in keep) + (n,)
    return dims, tuple(strides[d] for d in keep) + (strides[lo] + strides[hi],), row * strides[lo] + col * strides[hi]


def trace(ins, attrs, ctx=NO_CONTEXT):
    x = ins["Input"]
    dims, strides, base = _diagonal_window(tuple(x.shape), attrs)
    out_shape = dims[:-1] or (() if ctx.paddle2 else (1,))
    if dims[-1] == 0:
        return {"Out": zeros(out_shape, x.dtype)}
    diag = copy_window(x, rt.empty(dims, x.dtype), dims, strides, contiguous_strides(dims), base)
    return {"Out": reduce(diag, (len(dims) - 1,), "sum").reshape(out_shape)}


def trace_grad(ins, attrs):
    shape, dout = tuple(ins["Input"].shape), ins["Out@GRAD"]
    dims, strides, base = _diagonal_window(shape, attrs)
    dx = zeros(shape, dout.dtype)
    src = contiguous_strides(dims[:-1]) + (0,)
    return {"Input@GRAD": copy_window(dout, dx, dims, src, strides, 0, base)}


# bilinear_tensor_product: the CPU kernels on the host (device twins are not written yet)
HOST_OPS = host_ops("bilinear_tensor_product", "bilinear_tensor_product_grad")
