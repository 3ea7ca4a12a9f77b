"""CUDA twins of kernels/cpu/elementwise.py: each op is one broadcasting launch; each gradient is
one launch per input in the output's shape, summed back to the input's shape where broadcast."""
import math

import numpy as np
from numba import cuda

from ..cpu.elementwise import check_divisor
from . import runtime as rt
from ._elementwise import Binary, broadcast_strides, merge_dims, offset
from ._launch import flat, grid
from ._reduce import sum_to_shape


def align(x, y, axis):
    """Y viewed to broadcast against X under Fluid's axis rule (no copy)."""
    if y.ndim >= x.ndim or axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape((1,) * axis + tuple(y.shape) + (1,) * (x.ndim - axis - y.ndim))


def _binary(fn):
    op = Binary(fn)

    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        return {"Out": op(x, align(x, y, attrs["axis"]), dtype=x.dtype)}
    return kernel


@cuda.jit(device=True, inline=True)
def _add(a, b, p, q):
    return a + b


@cuda.jit(device=True, inline=True)
def _sub(a, b, p, q):
    return a - b


@cuda.jit(device=True, inline=True)
def _mul(a, b, p, q):
    return a * b


@cuda.jit(device=True, inline=True)
def _div(a, b, p, q):
    return a / b


@cuda.jit(device=True, inline=True)
def _max(a, b, p, q):
    return a if a >= b else b


@cuda.jit(device=True, inline=True)
def _min(a, b, p, q):
    return a if a <= b else b


@cuda.jit(device=True, inline=True)
def _pow(a, b, p, q):
    return a ** b


elementwise_add = _binary(_add)
elementwise_sub = _binary(_sub)
elementwise_mul = _binary(_mul)
elementwise_div = _binary(_div)
elementwise_max = _binary(_max)
elementwise_min = _binary(_min)
elementwise_pow = _binary(_pow)


# -- gradients --------------------------------------------------------------------------------

def _local_grad_kernel(fn):
    """out[i] = fn(x, y, out, dout) at output index i, x and y read through broadcast strides."""
    @cuda.jit
    def kernel(x, y, o, d, g, shape, xs, ys):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < g.size:
            g[i] = fn(x[offset(i, shape, xs)], y[offset(i, shape, ys)], o[i], d[i])
            i += step
    return kernel


class _Grad:
    def __init__(self, fx, fy):
        self.fx = _local_grad_kernel(fx) if fx is not None else None
        self.fy = _local_grad_kernel(fy) if fy is not None else None

    def __call__(self, ins, attrs):
        x, y, out, dout = ins["X"], ins["Y"], ins["Out"], ins["Out@GRAD"]
        ya = align(x, y, attrs["axis"])
        shape = tuple(out.shape)
        dims, xs, ys, _ = merge_dims(shape, [broadcast_strides(x.shape, shape),
                                             broadcast_strides(ya.shape, shape),
                                             broadcast_strides(shape, shape)])
        dx = self._local(self.fx, x, ya, out, dout, dims, xs, ys)
        dy = self._local(self.fy, x, ya, out, dout, dims, xs, ys)
        return {"X@GRAD": sum_to_shape(dx, x.shape),
                "Y@GRAD": sum_to_shape(dy, ya.shape).reshape(tuple(y.shape))}

    @staticmethod
    def _local(kernel, x, y, out, dout, dims, xs, ys):
        if kernel is None:          # the local gradient is Out@GRAD itself
            return dout
        g = rt.empty(out.shape, x.dtype)
        if g.size:
            kernel[grid(g.size)](flat(x), flat(y), flat(out), flat(dout), flat(g), dims, xs, ys)
        return g


def _device(fn):
    return cuda.jit(device=True, inline=True)(fn)


elementwise_add_grad = _Grad(None, None)
elementwise_sub_grad = _Grad(None, _device(lambda x, y, o, d: -d))
elementwise_mul_grad = _Grad(_device(lambda x, y, o, d: d * y), _device(lambda x, y, o, d: d * x))
elementwise_div_grad = _Grad(_device(lambda x, y, o, d: d / y), _device(lambda x, y, o, d: -d * o / y))
# Ties send the gradient to Y, as Fluid does.
elementwise_max_grad = _Grad(_device(lambda x, y, o, d: d if x > y else 0 * d),
                             _device(lambda x, y, o, d: d if x <= y else 0 * d))
elementwise_min_grad = _Grad(_device(lambda x, y, o, d: d if x < y else 0 * d),
                             _device(lambda x, y, o, d: d if x >= y else 0 * d))


@cuda.jit(device=True, inline=True)
def _pow_dx(x, y, o, d):
    return d * y * x ** (y - 1)


@cuda.jit(device=True, inline=True)
def _pow_dy(x, y, o, d):
    return d * o * math.log(x) if x > 0 else 0 * d


elementwise_pow_grad = _Grad(_pow_dx, _pow_dy)


# -- integer division and remainder (no gradient) ------------------------------------------------

@cuda.jit(device=True, inline=True)
def _trunc_div(a, b, p, q):
    d = abs(a) // abs(b)
    return -d if (a < 0) != (b < 0) else d


@cuda.jit(device=True, inline=True)
def _int_mod(a, b, p, q):
    d = abs(a) // abs(b)
    return a - (-d if (a < 0) != (b < 0) else d) * b


@cuda.jit(device=True, inline=True)
def _float_mod(a, b, p, q):
    return math.fmod(b + math.fmod(a, b), b)


_floordiv = _binary(_trunc_div)
_mod_int = _binary(_int_mod)
_mod_float = _binary(_float_mod)


def elementwise_floordiv(ins, attrs):
    check_divisor(rt.to_host(ins["Y"]), "elementwise_floordiv")
    return _floordiv(ins, attrs)


def elementwise_mod(ins, attrs):
    y = ins["Y"]
    if np.dtype(y.dtype).kind in "iu":
        check_divisor(rt.to_host(y), "elementwise_mod")
        return _mod_int(ins, attrs)
    return _mod_float(ins, attrs)
