"""CUDA twins of kernels/cpu/math.py: products (the tiled matmul), scaling and reductions."""
import numpy as np
from numba import cuda

from ...selected_rows import SelectedRows
from ...shapes import numel
from ..common import matmul_v1_attrs
from . import runtime as rt
from ._elementwise import Binary, Unary, expand_to, offset, scalar_arg
from ._launch import flat, grid
from ._matmul import matmul as _matmul
from ._reduce import normalize_axes, plan, reduce, sum_to_shape


def _rows(shape, num_col_dims):
    n = 1
    for d in shape[:num_col_dims]:
        n *= d
    return n


def _as_matrix(a, num_col_dims):
    rows = _rows(a.shape, num_col_dims)
    return a.reshape((rows, a.size // rows if rows else 0))


def mul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xd, yd = attrs["x_num_col_dims"], attrs["y_num_col_dims"]
    out = _matmul(_as_matrix(x, xd), _as_matrix(y, yd))
    return {"Out": out.reshape(tuple(x.shape[:xd]) + tuple(y.shape[yd:]))}


def mul_grad_x(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    y2 = _as_matrix(y, attrs["y_num_col_dims"])
    dx = _matmul(dout.reshape((dout.size // y2.shape[1], y2.shape[1])), y2, trans_b=True)
    return {"X@GRAD": dx.reshape(x.shape)}


def mul_grad_y(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    x2 = _as_matrix(x, attrs["x_num_col_dims"])
    dy = _matmul(x2, dout.reshape((x2.shape[0], dout.size // max(x2.shape[0], 1))), trans_a=True)
    return {"Y@GRAD": dy.reshape(y.shape)}


def mean(ins, attrs):
    x = ins["X"]
    return {"Out": reduce(x, range(x.ndim), "sum", mean=True).reshape((1,))}


def mean_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": expand_to(dout.reshape((1,) * max(x.ndim, 1)), x.shape, max(x.size, 1))}


@cuda.jit(device=True, inline=True)
def _scale_after(x, s, b):
    return x * s + b


@cuda.jit(device=True, inline=True)
def _scale_before(x, s, b):
    return (x + b) * s


_scale_after_k = Unary(_scale_after)
_scale_before_k = Unary(_scale_before)


def scale(ins, attrs):
    x = ins["X"]
    if isinstance(x, SelectedRows):     # Fluid's scale of a SelectedRows: its values, the same rows
        return {"Out": x.with_arrays(x.rows, scale({"X": x.values}, attrs)["Out"])}
    s, b = scalar_arg(x.dtype, attrs["scale"]), scalar_arg(x.dtype, attrs["bias"])
    kernel = _scale_after_k if attrs["bias_after_scale"] else _scale_before_k
    return {"Out": kernel(x, s, b)}


# -- reductions ---------------------------------------------------------------------------------

def _axes(x, attrs):
    return tuple(range(x.ndim)) if attrs["reduce_all"] else normalize_axes(x.ndim, attrs["dim"])


def _reduce_kernel(kind, mean=False):
    def kernel(ins, attrs):
        x = ins["X"]
        out = reduce(x, _axes(x, attrs), kind, keepdims=attrs["keep_dim"], mean=mean)
        return {"Out": out if out.ndim else out.reshape((1,))}
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


@cuda.jit
def _first_extreme_grad(x, out, dout, dx, kshape, kstr, rshape, rstr, nred):
    """Per output: the gradient goes to the first element equal to the extreme, zeros elsewhere."""
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        base = offset(o, kshape, kstr)
        target = out[o]
        first = nred
        for r in range(nred):
            if first == nred and x[base + offset(r, rshape, rstr)] == target:
                first = r
        for r in range(nred):
            dx[base + offset(r, rshape, rstr)] = dout[o] if r == first else 0
        o += step


def reduce_extreme_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        kshape, kstr, rshape, rstr = plan(tuple(x.shape), _axes(x, attrs))
        nred = x.size // max(out.size, 1)
        _first_extreme_grad[grid(out.size)](flat(x), flat(out), flat(dout), flat(dx),
                                            kshape, kstr, rshape, rstr, nred)
    return {"X@GRAD": dx}




# -- matmul ---------------------------------------------------------------------------------------

def _batch_shape(shape):
    return tuple(shape[:-2])


def _operand(a, trans, is_x):
    """(stored array as [batch..., r, c] view, transposed?) with a 1-D X a row, a 1-D Y a column."""
    if a.ndim == 1:
        return (a.reshape((1, a.shape[0])) if is_x else a.reshape((a.shape[0], 1))), False
    return a, bool(trans)


def _as_batches(a, batch):
    """``a`` ([b..., r, c]) as a 3-D [B, r, c] array for the common ``batch`` shape: a view when
    its batch is all of it or none of it, else a broadcast copy."""
    own = _batch_shape(a.shape)
    rc = tuple(a.shape[-2:])
    if own == batch or numel(own) == numel(batch):
        return a.reshape((numel(batch),) + rc)
    if numel(own) == 1:
        return a.reshape((1,) + rc)
    full = expand_to(a, batch + rc)
    return full.reshape((numel(batch),) + rc)


def _product(a, ta, b, tb, alpha, batch):
    """alpha * op(a) @ op(b) over the common batch shape, as [batch..., M, N]."""
    a3, b3 = _as_batches(a, batch), _as_batches(b, batch)
    c = _matmul(a3, b3, ta, tb, alpha)
    return c.reshape(batch + tuple(c.shape[-2:]))


def _math_shapes(x, y, attrs):
    xs, tx = _operand(x, attrs["transpose_X"], True)
    ys, ty = _operand(y, attrs["transpose_Y"], False)
    batch = tuple(np.broadcast_shapes(_batch_shape(xs.shape), _batch_shape(ys.shape)))
    return xs, tx, ys, ty, batch


def matmul(ins, attrs):
    x, y = ins["X"], ins["Y"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    out = _product(xs, tx, ys, ty, attrs["alpha"], batch)
    shape = tuple(out.shape)
    if x.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if y.ndim == 1:
        shape = shape[:-1]
    return {"Out": out.reshape(shape or (1,))}


def _dout(dout, xs, tx, ys, ty, batch):
    M = tuple(xs.shape)[-1] if tx else tuple(xs.shape)[-2]
    N = tuple(ys.shape)[-2] if ty else tuple(ys.shape)[-1]
    return dout.reshape(batch + (M, N))


def matmul_v2(ins, attrs):
    return matmul(ins, matmul_v1_attrs(attrs))


def matmul_grad_x(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    d = _dout(dout, xs, tx, ys, ty, batch)
    alpha = attrs["alpha"]
    if tx:      # X stored [K, M]: dX = alpha * op(Y) @ d^T
        dx = _product(ys, ty, d, True, alpha, batch)
    else:       # dX = alpha * d @ op(Y)^T
        dx = _product(d, False, ys, not ty, alpha, batch)
    return {"X@GRAD": sum_to_shape(dx, xs.shape).reshape(x.shape)}


def matmul_grad_y(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    xs, tx, ys, ty, batch = _math_shapes(x, y, attrs)
    d = _dout(dout, xs, tx, ys, ty, batch)
    alpha = attrs["alpha"]
    if ty:      # Y stored [N, K]: dY = alpha * d^T @ op(X)
        dy = _product(d, True, xs, tx, alpha, batch)
    else:       # dY = alpha * op(X)^T @ d
        dy = _product(xs, not tx, d, False, alpha, batch)
    return {"Y@GRAD": sum_to_shape(dy, ys.shape).reshape(y.shape)}


# -- clip -----------------------------------------------------------------------------------------

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
    return {"X@GRAD": _clip_grad_k(x, dout, scalar_arg(x.dtype, attrs["min"]),
                                   scalar_arg(x.dtype, attrs["max"]), dtype=dout.dtype)}
