"""CUDA twins of kernels/cpu/elementwise.py: each op is one broadcasting launch; each gradient is
one launch per input in the output's shape, summed back to the input's shape where broadcast. This
module defines a kernel named ``sum`` (the builtins are reached as ``builtins.*``). clip_by_norm
reads the norm on the device (no host round trip); isfinite/isinf/isnan are one flag launch."""

import builtins
import math

import numpy as np
from numba import cuda

from ...base.selected_rows import SelectedRows
from ..common import div_grad_grad
from ..value_checks import check_divisor
from . import runtime as rt, selected_rows as _sparse
from ._host import with_args
from ..context import NO_CONTEXT
from ._elementwise import Binary, Unary, broadcast_strides, merge_dims, offset, scalar_arg
from ._launch import copy, flat, grid, zeros
from ._reduce import sum_to_shape
from .reduction import sum_of_squares
from .launcher import jit_kernel
from ._int_division import (
    _trunc_div,
    _floor_div_int,
    _floor_div_float,
    _int_mod,
    _int_mod_signed,
    _float_mod,
    _float_mod_signed,
)


def align(x, y, axis):
    """Y viewed to broadcast against X under Fluid's axis rule (no copy)."""
    if y.ndim >= x.ndim or axis == -1 or axis == x.ndim - y.ndim:
        return y
    return y.reshape((1,) * axis + tuple(y.shape) + (1,) * (x.ndim - axis - y.ndim))


def align_both(x, y, axis):
    """(X, Y) viewed to broadcast against each other under Fluid's axis rule: the one of fewer dims
    placed in the other from ``axis`` on (X may be the smaller: Out then has Y's shape)."""
    return align(y, x, axis), align(x, y, axis)


def _binary(fn):
    op = Binary(fn)

    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        return {"Out": op(*align_both(x, y, attrs["axis"]), dtype=x.dtype)}

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
    return a**b


elementwise_add = _binary(_add)
elementwise_sub = _binary(_sub)
elementwise_mul = _binary(_mul)
_div_floats = _binary(_div)
elementwise_max = _binary(_max)
elementwise_min = _binary(_min)
elementwise_pow = _binary(_pow)


# -- gradients --------------------------------------------------------------------------------


def _local_grad_kernel(fn):
    """out[i] = fn(x, y, out, dout) at output index i, x and y read through broadcast strides."""

    @jit_kernel
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
        x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
        out = ins["Out"] if ins.get("Out") is not None else dout  # (Out: div's grad op alone reads it, as Fluid's)
        xa, ya = align_both(x, y, attrs["axis"])
        shape = tuple(dout.shape)
        dims, xs, ys, _ = merge_dims(
            shape,
            [broadcast_strides(xa.shape, shape), broadcast_strides(ya.shape, shape), broadcast_strides(shape, shape)],
        )
        dx = self._local(self.fx, xa, ya, out, dout, dims, xs, ys)
        dy = self._local(self.fy, xa, ya, out, dout, dims, xs, ys)
        return {
            "X@GRAD": sum_to_shape(dx, xa.shape).reshape(tuple(x.shape)),
            "Y@GRAD": sum_to_shape(dy, ya.shape).reshape(tuple(y.shape)),
        }

    @staticmethod
    def _local(kernel, x, y, out, dout, dims, xs, ys):
        if kernel is None:  # the local gradient is Out@GRAD itself
            return dout
        g = rt.empty(out.shape, x.dtype)
        if g.size:
            kernel[grid(g.size)](flat(x), flat(y), flat(out), flat(dout), flat(g), dims, xs, ys)
        return g


def _device(fn):
    return cuda.jit(device=True, inline=True)(fn)


elementwise_add_grad = _Grad(None, None)
elementwise_sub_grad = _Grad(None, _device(lambda x, y, o, d: -d))
# complex: the other factor's conjugate, as Paddle 2.6's (kernels/common.py conj)
elementwise_mul_grad = _Grad(
    _device(lambda x, y, o, d: d * y.conjugate()), _device(lambda x, y, o, d: d * x.conjugate())
)
elementwise_div_grad = _Grad(
    _device(lambda x, y, o, d: d / y.conjugate()), _device(lambda x, y, o, d: -d * (o / y).conjugate())
)
# Ties send the gradient to Y, as Fluid does.
elementwise_max_grad = _Grad(
    _device(lambda x, y, o, d: d if x > y else 0 * d), _device(lambda x, y, o, d: d if x <= y else 0 * d)
)
elementwise_min_grad = _Grad(
    _device(lambda x, y, o, d: d if x < y else 0 * d), _device(lambda x, y, o, d: d if x >= y else 0 * d)
)


@cuda.jit(device=True, inline=True)
def _pow_dx(x, y, o, d):
    return d * y * x ** (y - 1)


@cuda.jit(device=True, inline=True)
def _pow_dy(x, y, o, d):  # dOut * log(X) * X^Y: NaN where X < 0, -inf or NaN at 0 (both Paddles')
    return d * math.log(x) * x**y


elementwise_pow_grad = _Grad(_pow_dx, _pow_dy)


# -- integer division and remainder (no gradient; the rules in _int_division.py) ---------------------

_int_div = _binary(_trunc_div)
_floordiv = {(False, True): _binary(_trunc_div), (True, True): _binary(_floor_div_int)}
_floordiv[True, False] = _binary(_floor_div_float)
_mod = {(False, True): _binary(_int_mod), (True, True): _binary(_int_mod_signed)}
_mod.update({(False, False): _binary(_float_mod), (True, False): _binary(_float_mod_signed)})


def _ints(v):
    return np.dtype(v.dtype).kind in "iu"


def elementwise_div(ins, attrs):
    """Of ints C's division, truncated towards zero, a zero in Y an error (kernels/cpu/elementwise.py)."""
    if not _ints(ins["X"]):
        return _div_floats(ins, attrs)
    check_divisor(rt.to_host(ins["Y"]), "elementwise_div")
    return _int_div(ins, attrs)


def elementwise_floordiv(ins, attrs, ctx=NO_CONTEXT):
    """Fluid 1.8's truncated int division, or Paddle 2.x's floored one (``ctx.paddle2``; floats too)."""
    ints = _ints(ins["X"])
    if ints:
        check_divisor(rt.to_host(ins["Y"]), "elementwise_floordiv")
    return _floordiv[bool(ctx.paddle2), ints](ins, attrs)


def elementwise_mod(ins, attrs, ctx=NO_CONTEXT):
    """Fluid 1.8's remainder (ints: X's sign), or Paddle 2.x's (``ctx.paddle2``: Y's sign)."""
    ints = _ints(ins["Y"])
    if ints:
        check_divisor(rt.to_host(ins["Y"]), "elementwise_mod")
    return _mod[bool(ctx.paddle2), ints](ins, attrs)


def _sum_kernel(n):
    @jit_kernel
    def add_n(xs, out):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < out.size:
            acc = xs[0][i]
            for k in range(1, n):  # in order, as the CPU adds them
                acc += xs[k][i]
            out[i] = acc
            i += step

    return add_n


_sum_kernels = {}


def _add_slots(a, b):
    """a + b for tensor arrays' gradients, slot by slot (None: zero), each sum on the device."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, list):
        n = builtins.max(len(a), len(b))
        return [_add_slots(x, y) for x, y in zip(list(a) + [None] * (n - len(a)), list(b) + [None] * (n - len(b)))]
    return sum({"X": [a, b]}, {})["Out"]


def sum(ins, attrs):
    xs = ins["X"]
    if isinstance(xs[0], list):  # tensor arrays' gradients (control flow), as on the CPU
        out = xs[0]
        for x in xs[1:]:
            out = _add_slots(out, x)
        return {"Out": out}
    if any(isinstance(x, SelectedRows) for x in xs):
        return {"Out": _sparse.sum_with_sparse(xs, lambda dense: sum({"X": dense}, attrs)["Out"])}
    if len(xs) == 1:
        return {"Out": copy(xs[0])}
    kernel = _sum_kernels.get(len(xs))
    if kernel is None:
        kernel = _sum_kernels[len(xs)] = _sum_kernel(len(xs))
    out = rt.empty(xs[0].shape, xs[0].dtype)
    if out.size:
        kernel[grid(out.size)](tuple(flat(x) for x in xs), flat(out))
    return {"Out": out}


@cuda.jit(device=True, inline=True)
def _scale_after(x, s, b):
    return x * s + b


@cuda.jit(device=True, inline=True)
def _scale_before(x, s, b):
    return (x + b) * s


scale_after_k = Unary(_scale_after)
_scale_before_k = Unary(_scale_before)


def scale(ins, attrs):
    x = ins["X"]
    if isinstance(x, SelectedRows):  # Fluid's scale of a SelectedRows: its values, the same rows
        return {"Out": x.with_arrays(x.rows, scale(dict(ins, X=x.values), attrs)["Out"])}
    s = attrs["scale"]
    if ins.get("ScaleTensor") is not None:  # Fluid 1.8's ScaleTensor: its one value is the scale
        s = float(rt.to_host(ins["ScaleTensor"]).reshape(-1)[0])
    s, b = scalar_arg(x.dtype, s), scalar_arg(x.dtype, attrs["bias"])
    kernel = scale_after_k if attrs["bias_after_scale"] else _scale_before_k
    return {"Out": kernel(x, s, b)}


@cuda.jit(device=True, inline=True)
def _clip(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@cuda.jit(device=True, inline=True)
def _clip_grad(x, d, lo, hi):
    return d if (x > lo and x < hi) else 0


_clip_k = Unary(_clip)
_clip_grad_k = Binary(_clip_grad)


def clip(ins, attrs):
    x = ins["X"]
    return {"Out": _clip_k(x, scalar_arg(x.dtype, attrs["min"]), scalar_arg(x.dtype, attrs["max"]))}


def clip_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {
        "X@GRAD": _clip_grad_k(
            x, dout, scalar_arg(x.dtype, attrs["min"]), scalar_arg(x.dtype, attrs["max"]), dtype=dout.dtype
        )
    }


@jit_kernel
def _scale_to_norm(x, sumsq, max_norm, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    norm = math.sqrt(sumsq[0])
    while i < out.size:
        out[i] = x[i] * (max_norm / norm) if norm > max_norm else x[i]
        i += step


def clip_by_norm(ins, attrs):
    x = ins["X"]
    if isinstance(x, SelectedRows):  # as Fluid's: the rows merged (duplicates summed), their values clipped
        rows, values = _sparse.merged(x, ascending=True)
        return {"Out": x.with_arrays(rows, clip_by_norm({"X": values}, attrs)["Out"])}
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _scale_to_norm[grid(out.size)](flat(x), sum_of_squares(x), scalar_arg(x.dtype, attrs["max_norm"]), flat(out))
    return {"Out": out}


def _flag_kernel(kind):
    @jit_kernel
    def kernel(x, out):
        i = cuda.grid(1)
        step = cuda.gridsize(1)
        while i < x.size:
            v = x[i]
            if kind == 0:
                hit = math.isnan(v) or math.isinf(v)
            elif kind == 1:
                hit = math.isinf(v)
            else:
                hit = math.isnan(v)
            if hit:
                out[0] = 1
            i += step

    return kernel


_FLAGS = {"isfinite": _flag_kernel(0), "isinf": _flag_kernel(1), "isnan": _flag_kernel(2)}


def _flag(name):
    def kernel(ins, attrs):
        x = ins["X"]
        hit = zeros((1,), np.int32)
        if x.size:
            _FLAGS[name][grid(x.size)](flat(x), hit)
        found = bool(rt.to_host(hit)[0])
        return {"Out": rt.to_device(np.array([not found if name == "isfinite" else found]))}

    kernel.__name__ = name
    return kernel


isfinite = _flag("isfinite")
isinf = _flag("isinf")
isnan = _flag("isnan")


def elementwise_div_grad_grad(ins, attrs, ctx):
    """Fluid's second-order gradient of elementwise_div, made of this device's kernels above."""
    return div_grad_grad(globals(), ins, attrs, ctx)


def minus(ins, attrs):
    """Fluid 1.8's minus: X - Y of one shape (checked at run time, as Fluid's)."""
    if tuple(ins["X"].shape) != tuple(ins["Y"].shape):
        raise ValueError(f"minus takes X and Y of one shape, got X {list(ins['X'].shape)} and Y {list(ins['Y'].shape)}")
    return elementwise_sub(ins, {"axis": -1})


HOST_OPS = {"dgc_clip_by_norm": with_args(clip=clip_by_norm, step_of=rt.to_host)}  # the CPU's steps, this clip
