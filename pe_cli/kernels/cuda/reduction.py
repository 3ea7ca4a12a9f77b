"""CUDA twins of kernels/cpu/reduction.py: reductions are block reductions (_reduce.py), cumsum one
thread per line, the gradients one grid-stride pass; the norms elementwise launches around a reduction."""

import math

import numpy as np
from numba import cuda

from ...base.dtypes import convert_dtype
from . import runtime as rt
from ..context import NO_CONTEXT
from ._elementwise import Binary, Ternary, Unary, expand_to, offset, scalar_arg
from ._host import host_ops, on_host_when
from ._launch import copy, flat, grid
from ._reduce import normalize_axes, plan, reduce
from .launcher import jit_kernel
from ...shapes.reduction import reduce_axes, reduces_all, scalar_shape, sum_dtype


def mean(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    return {"Out": reduce(x, range(x.ndim), "sum", mean=True).reshape(scalar_shape(ctx.zero_dim))}


def mean_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": expand_to(dout.reshape((1,) * max(x.ndim, 1)), x.shape, max(x.size, 1))}


def _axes(x, attrs):
    return tuple(range(x.ndim)) if reduces_all(attrs) else normalize_axes(x.ndim, attrs["dim"])


def _as_out_dtype(x, attrs):
    """X cast to the reduction's out_dtype (as the CPU out-kernels cast it to the dtype shapes/reduction.py decides)."""
    code = attrs.get("out_dtype", -1)
    return x if code in (-1, None) else copy(x, np.dtype(convert_dtype(code)))


def _reduce_kernel(kind, mean=False):
    def kernel(ins, attrs, ctx=NO_CONTEXT):
        x = ins["X"]
        dtype = sum_dtype(attrs, x.dtype, ctx.paddle2) if kind == "sum" and not mean else None
        x = copy(x, dtype) if dtype is not None and dtype != x.dtype else _as_out_dtype(x, attrs)
        out = reduce(x, _axes(x, attrs), kind, keepdims=attrs["keep_dim"], mean=mean)
        return {"Out": out if out.ndim else out.reshape(scalar_shape(ctx.zero_dim))}

    return kernel


reduce_sum = _reduce_kernel("sum")
reduce_mean = _reduce_kernel("sum", mean=True)
reduce_max = _reduce_kernel("max")
reduce_min = _reduce_kernel("min")


def _kept_shape(x, attrs):
    axes = _axes(x, attrs)
    return tuple(1 if i in axes else n for i, n in enumerate(x.shape))


def reduce_sum_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": expand_to(dout.reshape(_kept_shape(x, attrs)), x.shape)}


def reduce_mean_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    count = 1
    for a in _axes(x, attrs):
        count *= x.shape[a]
    return {"X@GRAD": expand_to(dout.reshape(_kept_shape(x, attrs)), x.shape, count)}


@jit_kernel
def _extreme_grad(x, out, dout, dx, kshape, kstr, rshape, rstr, nred):
    """Per output: its gradient to every element equal to the extreme (Paddle's: ties each take all of it),
    zeros elsewhere."""
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        base = offset(o, kshape, kstr)
        target = out[o]
        for r in range(nred):
            at = base + offset(r, rshape, rstr)
            dx[at] = dout[o] if x[at] == target else 0
        o += step


def reduce_extreme_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        kshape, kstr, rshape, rstr = plan(tuple(x.shape), _axes(x, attrs))
        nred = x.size // max(out.size, 1)
        _extreme_grad[grid(out.size)](flat(x), flat(out), flat(dout), flat(dx), kshape, kstr, rshape, rstr, nred)
    return {"X@GRAD": dx}


@jit_kernel
def _cumsum(x, out, n, post, lines, zero, exclusive, backward):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < lines:
        base = (i // post) * n * post + i % post
        acc = zero
        for k in range(n):
            j = base + ((n - 1 - k) if backward else k) * post
            v = x[j]
            if exclusive:
                out[j] = acc
                acc += v
            else:
                acc += v
                out[j] = acc
        i += step


def cumsum(ins, attrs):
    x = ins["X"]
    if attrs.get("flatten"):  # Paddle 2.x's axis=None: over X flattened, Out 1-D
        return cumsum({"X": x.reshape(x.size)}, dict(attrs, flatten=False, axis=0))
    shape = tuple(x.shape) or (1,)
    axis = attrs["axis"] % len(shape)
    n = shape[axis]
    post = int(np.prod(shape[axis + 1 :], dtype=np.int64))
    out = rt.empty(x.shape, x.dtype)
    lines = x.size // n if n else 0
    if lines:
        _cumsum[grid(lines)](
            flat(x),
            flat(out),
            n,
            post,
            lines,
            np.dtype(x.dtype).type(0),
            bool(attrs["exclusive"]),
            bool(attrs["reverse"]),
        )
    return {"Out": out}


def _reduced(x, attrs, kind, zero_dim):
    axes = reduce_axes(x, attrs)
    out = reduce(x, axes, kind, keepdims=attrs["keep_dim"])
    return out if out.ndim else out.reshape(scalar_shape(zero_dim))


def reduce_prod(ins, attrs, ctx=NO_CONTEXT):
    return {"Out": _reduced(_as_out_dtype(ins["X"], attrs), attrs, "prod", ctx.zero_dim)}


def _logical(kind):
    def kernel(ins, attrs, ctx=NO_CONTEXT):
        out = _reduced(copy(ins["X"], np.uint8), attrs, kind, ctx.zero_dim)
        return {"Out": copy(out, np.bool_)}

    return kernel


reduce_all = _logical("min")
reduce_any = _logical("max")


@jit_kernel
def _prod_grad(x, dout, dx, kshape, kstr, rshape, rstr, nred, total):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < total:
        o = i // nred
        r = i % nred
        base = offset(o, kshape, kstr)
        acc = dout[o]
        for k in range(nred):
            if k != r:
                acc *= x[base + offset(k, rshape, rstr)]
        dx[base + offset(r, rshape, rstr)] = acc
        i += step


def reduce_prod_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        axes = normalize_axes(x.ndim, reduce_axes(x, attrs))
        kshape, kstr, rshape, rstr = plan(tuple(x.shape), axes)
        nred = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
        _prod_grad[grid(x.size)](flat(x), flat(dout), flat(dx), kshape, kstr, rshape, rstr, nred, x.size)
    return {"X@GRAD": dx}


_square = Unary(cuda.jit(device=True, inline=True)(lambda x, p, q: x * x))


def sum_of_squares(x):
    return reduce(_square(x), range(x.ndim), "sum").reshape((1,))


def squared_l2_norm(ins, attrs):
    return {"Out": sum_of_squares(ins["X"])}


@jit_kernel
def _times_twice(x, dout, out):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    d = dout[0]
    while i < out.size:
        out[i] = x[i] * (2 * d)
        i += step


def squared_l2_norm_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _times_twice[grid(out.size)](flat(x), flat(dout), flat(out))
    return {"X@GRAD": out}


# -- norms ----------------------------------------------------------------------------------------


@cuda.jit(device=True, inline=True)
def _abs_pow(x, p, q):
    return abs(x) ** p


@cuda.jit(device=True, inline=True)
def _root(x, p, q):
    return x**p


@cuda.jit(device=True, inline=True)
def _over_norm(x, norm, d, p, q):
    return x / (norm + p) * d


@cuda.jit(device=True, inline=True)
def _p_norm_grad(x, norm, d, p, eps):
    s = 1 if x > 0 else (-1 if x < 0 else 0)
    return abs(x) ** (p - 1) / (norm ** (p - 1) + eps) * d * s


@cuda.jit(device=True, inline=True)
def _signed(x, d, p, q):
    return d if x > 0 else (-d if x < 0 else 0 * d)


_ABS_POW, _ROOT, _OVER_NORM, _P_NORM_GRAD = Unary(_abs_pow), Unary(_root), Ternary(_over_norm), Ternary(_p_norm_grad)
_SIGNED = Binary(_signed)


def frobenius_norm(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    if attrs["out_dtype"] >= 0:
        x = copy(x, convert_dtype(attrs["out_dtype"]))
    out = reduce(_square(x), _axes(x, attrs), "sum", keepdims=attrs["keep_dim"])
    out = _ROOT(out, scalar_arg(out.dtype, 0.5))
    return {"Out": out if out.ndim else out.reshape(scalar_shape(ctx.zero_dim))}


def frobenius_norm_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    kept = _kept_shape(x, attrs)
    norm, d = expand_to(out.reshape(kept), x.shape), expand_to(dout.reshape(kept), x.shape)
    return {"X@GRAD": _OVER_NORM(x, norm, d, scalar_arg(x.dtype, 1e-12))}


def _norm_kept(x, attrs):
    axis = attrs["axis"] % max(x.ndim, 1)
    return axis, tuple(1 if i == axis else n for i, n in enumerate(x.shape))


def p_norm(ins, attrs):
    x, p = ins["X"], attrs["porder"]
    axis, kept = _norm_kept(x, attrs)
    out = _ROOT(
        reduce(_ABS_POW(x, scalar_arg(x.dtype, p)), (axis,), "sum", keepdims=True),
        scalar_arg(x.dtype, np.float32(1) / np.float32(p)),
    )
    return {"Out": out if attrs["keepdim"] else out.reshape(tuple(x.shape[:axis]) + tuple(x.shape[axis + 1 :]))}


def p_norm_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    _, kept = _norm_kept(x, attrs)
    norm, d = expand_to(out.reshape(kept), x.shape), expand_to(dout.reshape(kept), x.shape)
    return {
        "X@GRAD": _P_NORM_GRAD(x, norm, d, scalar_arg(x.dtype, attrs["porder"]), scalar_arg(x.dtype, attrs["epsilon"]))
    }


def _as_vector(attrs):
    """Paddle 2.x's norm of all of X, and its porder 0, inf and -inf: the CPU's kernels, on the host."""
    return attrs.get("asvector") or attrs["porder"] == 0 or math.isinf(attrs["porder"])


def l1_norm(ins, attrs, ctx=NO_CONTEXT):
    x = ins["X"]
    total = reduce(_ABS_POW(x, scalar_arg(x.dtype, 1.0)), range(x.ndim), "sum")
    return {"Out": total.reshape(scalar_shape(ctx.zero_dim))}


def l1_norm_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": _SIGNED(x, expand_to(dout.reshape((1,) * max(x.ndim, 1)), x.shape))}


# Paddle 2.x's reductions: reduce_amax / reduce_amin run reduce_max's / reduce_min's kernels (their registered
# kernel); their shared gradient and logsumexp run their CPU twins on the host (kernels/cuda/_host.py)
HOST_OPS = {
    **host_ops("reduce_even_extreme_grad", "logsumexp", "logsumexp_grad"),
    "p_norm": on_host_when(_as_vector, p_norm),
    "p_norm_grad": on_host_when(_as_vector, p_norm_grad),
}
