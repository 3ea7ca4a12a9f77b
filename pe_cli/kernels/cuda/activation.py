"""CUDA twins of kernels/cpu/activation.py, made from the rows of the activation table (pe_cli/base/activations.py):
each activation is the row's scalar forward, a device function of x and the row's attributes, mapped in one launch;
each gradient the row's scalar derivative of (X or Out, as the row reads, and Out@GRAD). Attributes are passed in
the input's dtype (Out@GRAD's for the gradient). softmax and log_softmax are block reductions along their axis,
written here; prelu is one elementwise kernel, maxout one thread per output. Fluid's second-order ops of five rows
(``<op>_grad_grad``) are the row's gradient and one elementwise launch (activations_second_order.py)."""

import math

import numpy as np
from numba import cuda

from ...base.activations_second_order import grad_grad_kernels
from ...base.activations import ROWS, SCALAR_HELPERS, bind, kernels
from ...base.activations_paddle2_forms import PADDLE2_FORMS, computes_paddle2, prelu_mode
from .. import kernel_of
from . import runtime as rt
from ._host import given_cpu_kernel, on_host
from ._elementwise import Binary, Ternary, Unary, scalar_arg
from ._launch import THREADS, flat, grid, per_dtype, rows_grid, zeros
from ._reduce import block_max, block_sum, reduce
from .launcher import jit_kernel
from ..context import NO_CONTEXT
from ..common import table_getattr


def _d(fn):
    return cuda.jit(device=True, inline=True)(fn)


_HELPERS = {name: _d(fn) for name, fn in SCALAR_HELPERS.items()}

# The element kernels call f(x, p, q) and f(a, d, p, q); a row's function takes its own attributes.
# A row of three attributes (hard_swish) gets them as one small device array in p.
_TAKE = {
    (1, 3): lambda f: lambda x, p, q: f(x, p[0], p[1], p[2]),
    (2, 3): lambda f: lambda a, d, p, q: f(a, d, p[0], p[1], p[2]),
    (1, 0): lambda f: lambda x, p, q: f(x),
    (1, 1): lambda f: lambda x, p, q: f(x, p),
    (1, 2): lambda f: lambda x, p, q: f(x, p, q),
    (2, 0): lambda f: lambda a, d, p, q: f(a, d),
    (2, 1): lambda f: lambda a, d, p, q: f(a, d, p),
    (2, 2): lambda f: lambda a, d, p, q: f(a, d, p, q),
    (3, 0): lambda f: lambda a, b, c, p, q: f(a, b, c),
    (3, 1): lambda f: lambda a, b, c, p, q: f(a, b, c, p),
}


def _device(fn, arrays, row):
    """The row's scalar function ``fn`` as a device function of (arrays..., p, q)."""
    return _d(_TAKE[arrays, len(row.params)](_d(bind(fn, **_HELPERS))))


def _pq(row, attrs, dtype):
    """The row's attributes as (p, q): numbers in ``dtype``, flags as bools, unused ones 0.0; three
    numbers as one device array in p."""
    values = [attrs[p.name] for p in row.params]
    if len(values) > 2:
        return [rt.to_device(np.array(values, dtype=dtype)), 0.0]
    return ([v if isinstance(v, bool) else scalar_arg(dtype, v) for v in values] + [0.0, 0.0])[:2]


def _forward_kernel(row):
    op = Unary(_device(row.device_forward, 1, row))

    def kernel(ins, attrs):
        x = ins["X"]
        return {"Out": op(x, *_pq(row, attrs, x.dtype))}

    return kernel


def _grad_kernel(row):
    op, reads = Binary(_device(row.device_derivative, 2, row)), row.reads

    def kernel(ins, attrs):
        a, dout = ins[reads] if reads else ins["Out@GRAD"], ins["Out@GRAD"]  # (reads nothing: dOut twice)
        return {"X@GRAD": op(a, dout, *_pq(row, attrs, dout.dtype), dtype=dout.dtype)}

    return kernel


# The table's kernels: one per row of the activation table and one per row's gradient (relu, relu_grad,
# leaky_relu, ...), and Fluid's second-order ops (relu_grad_grad, ...: below). The registry finds them
# by op type as module attributes (``__getattr__``), where no name below is the op type's.
_ROW_KERNELS = kernels(_forward_kernel, _grad_kernel)


__getattr__ = table_getattr(_ROW_KERNELS, __name__)


def _kernel(name):
    """The module's kernel of the op type ``name``: a name below, else the table's."""
    return globals()[name] if name in globals() else _ROW_KERNELS[name]


def _paddle2_form(name):
    """Paddle 2.x's formula where it differs (activations.PADDLE2_FORMS): the op's CPU kernel, on the host; the
    table's kernel otherwise."""
    table = _ROW_KERNELS[name]

    def kernel(ins, attrs, cpu_kernel, ctx=NO_CONTEXT):
        paddle2 = ctx.paddle2 and computes_paddle2(name, attrs, ins.get("X") is not None)
        return (on_host(cpu_kernel) if paddle2 else table)(ins, attrs)

    kernel.__name__ = name
    return given_cpu_kernel(kernel)


def _complex_on_host(name):
    """Of a complex X the op's CPU kernel on the host (abs: |X|, dOut * X / |X|; the table's device functions
    compare X with 0, which a complex X is not ordered by); the table's kernel otherwise."""
    table = _ROW_KERNELS[name]

    def kernel(ins, attrs, cpu_kernel):
        return (on_host(cpu_kernel) if np.dtype(ins["X"].dtype).kind == "c" else table)(ins, attrs)

    kernel.__name__ = name
    return given_cpu_kernel(kernel)


# Paddle 2.x's forms of leaky_relu, elu and hard_shrink and their gradients, and abs of complex values
# (kernels.kernel_of finds these rows before the table's kernels)
HOST_OPS = {
    "abs": _complex_on_host("abs"),
    "abs_grad": _complex_on_host("abs_grad"),
    "leaky_relu": _paddle2_form("leaky_relu"),
    "leaky_relu_grad": _paddle2_form("leaky_relu_grad"),
    "elu": _paddle2_form("elu"),
    "elu_grad": _paddle2_form("elu_grad"),
    "hard_shrink": _paddle2_form("hard_shrink"),
    "hard_shrink_grad": _paddle2_form("hard_shrink_grad"),
}
assert {n for name in (*PADDLE2_FORMS, "abs") for n in (name, name + "_grad")} == set(HOST_OPS)


def _grad_grad_kernel(second):
    """Fluid's ``<name>_grad_grad``: DDOut is the row's gradient kernel of (u, DDX); the gradient of
    u the second-order form, one launch of (u, DOut or DX, DDX)."""
    row = ROWS[second.name]
    first = Ternary(_d(_TAKE[3, len(row.params)](_d(second.device_first)))) if second.first else None
    grad_name = f"{second.name}_grad"
    grad = None if grad_name in HOST_OPS else _kernel(grad_name)

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        nonlocal grad
        if grad is None:  # the gradient op's kernel as the registry finds it (a Paddle 2.x form's: HOST_OPS)
            grad = kernel_of("cuda", "activation", grad_name)
        u, ddx, wanted, outs = ins[row.reads], ins["DDX"], ctx.wanted({"DDOut", second.slot}), {}
        if first is not None and second.slot in wanted:
            outs[second.slot] = first(u, ins[second.given], ddx, *_pq(row, attrs, ddx.dtype), dtype=ddx.dtype)
        if "DDOut" in wanted:
            outs["DDOut"] = grad({row.reads: u, "Out@GRAD": ddx}, attrs)["X@GRAD"]
        return outs

    return kernel


_ROW_KERNELS.update(grad_grad_kernels(_grad_grad_kernel))  # relu_grad_grad, elu_grad_grad, ...


# -- softmax family: one block per row along the axis ----------------------------------------


def row_layout(shape, axis):
    """(rows, n, inner): the array as rows of n elements along ``axis``, ``inner`` apart."""
    axis %= len(shape)
    n = shape[axis]
    inner = 1
    for d in shape[axis + 1 :]:
        inner *= d
    total = 1
    for d in shape:
        total *= d
    return total // max(n, 1), n, inner


def _softmax_kernel(dt, log):
    T = THREADS
    neg_inf = dt(-np.inf)
    zero = dt(0)
    floor = dt(-64.0)

    @jit_kernel
    def kernel(x, out, rows, n, inner):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = (r // inner) * n * inner + r % inner
            m = neg_inf
            for j in range(t, n, nt):
                m = max(m, x[base + j * inner])
            m = block_max(shared, m)
            s = zero
            for j in range(t, n, nt):
                v = x[base + j * inner] - m
                if log and v < floor:  # (Paddle's CPU log_softmax: its ValueClip at -64)
                    v = floor
                s += math.exp(v)
            s = block_sum(shared, s)
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    v = x[k] - m
                    out[k] = (floor if v < floor else v) - math.log(s)
                else:
                    out[k] = math.exp(x[k] - m) / s
            r += cuda.gridDim.x

    return kernel


def _softmax_grad_kernel(dt, log):
    T = THREADS
    zero = dt(0)

    @jit_kernel
    def kernel(out, dout, dx, rows, n, inner):
        shared = cuda.shared.array(T, dt)
        t = cuda.threadIdx.x
        nt = cuda.blockDim.x
        r = cuda.blockIdx.x
        while r < rows:
            base = (r // inner) * n * inner + r % inner
            s = zero
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    s += dout[k]
                else:
                    s += dout[k] * out[k]
            s = block_sum(shared, s)
            for j in range(t, n, nt):
                k = base + j * inner
                if log:
                    dx[k] = dout[k] - math.exp(out[k]) * s
                else:
                    dx[k] = out[k] * (dout[k] - s)
            r += cuda.gridDim.x

    return kernel


_softmax_k = per_dtype(_softmax_kernel)
_softmax_grad_k = per_dtype(_softmax_grad_kernel)


def _rowwise(x, axis, log):
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        rows, n, inner = row_layout(tuple(x.shape), axis)
        _softmax_k(x.dtype, log)[rows_grid(rows, n)](x.reshape(x.size), out.reshape(out.size), rows, n, inner)
    return out


def _rowwise_grad(out, dout, axis, log):
    dx = rt.empty(out.shape, dout.dtype)
    if dx.size:
        rows, n, inner = row_layout(tuple(out.shape), axis)
        _softmax_grad_k(dout.dtype, log)[rows_grid(rows, n)](
            out.reshape(out.size), dout.reshape(dout.size), dx.reshape(dx.size), rows, n, inner
        )
    return dx


def softmax(ins, attrs):
    return {"Out": _rowwise(ins["X"], attrs["axis"], False)}


def softmax_grad(ins, attrs):
    return {"X@GRAD": _rowwise_grad(ins["Out"], ins["Out@GRAD"], attrs["axis"], False)}


def log_softmax(ins, attrs):
    return {"Out": _rowwise(ins["X"], attrs["axis"], True)}


def log_softmax_grad(ins, attrs):
    return {"X@GRAD": _rowwise_grad(ins["Out"], ins["Out@GRAD"], attrs["axis"], True)}


# -- prelu: one elementwise kernel, its alpha gradient a reduction of x * dout where x <= 0 ------------
def _alpha_index(x_shape, mode):
    """(div, mod): element e of X uses alpha[(e // div) % mod]."""
    x_shape, inner = tuple(x_shape), 1  # (a tuple: the simulator's device shapes take no negative index)
    for d in x_shape[2:]:
        inner *= d
    if mode == "all":
        return 1, 1
    if mode == "channel_last":
        return 1, x_shape[-1]
    if mode == "channel":
        return inner, x_shape[1]
    return 1, inner * x_shape[1]


@jit_kernel
def _prelu(x, alpha, out, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        v = x[e]
        out[e] = v if v > 0 else alpha[(e // div) % mod] * v
        e += step


@jit_kernel
def _prelu_grad(x, alpha, dout, dx, neg, div, mod):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        v = x[e]
        if v > 0:
            dx[e] = dout[e]
            neg[e] = 0
        else:
            dx[e] = alpha[(e // div) % mod] * dout[e]
            neg[e] = v * dout[e]
        e += step


def prelu(ins, attrs):
    x = ins["X"]
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _prelu[grid(out.size)](flat(x), flat(ins["Alpha"]), flat(out), *_alpha_index(x.shape, prelu_mode(attrs)))
    return {"Out": out}


def prelu_grad(ins, attrs):
    x, alpha, mode = ins["X"], ins["Alpha"], prelu_mode(attrs)
    div, mod = _alpha_index(x.shape, mode)
    dx, neg = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if dx.size:
        _prelu_grad[grid(dx.size)](flat(x), flat(alpha), flat(ins["Out@GRAD"]), flat(dx), flat(neg), div, mod)
    rows = x.size // max(mod, 1) if mode == "channel_last" else x.shape[0]  # (NHWC: alpha per last dim)
    if mode == "channel":
        dalpha = reduce(neg.reshape((x.shape[0], x.shape[1], div)), (0, 2), "sum")
    else:
        dalpha = reduce(neg.reshape((rows, x.size // max(rows, 1))), (0,), "sum")
        if mode == "all":
            dalpha = reduce(dalpha, (0,), "sum")
    return {"X@GRAD": dx, "Alpha@GRAD": dalpha.reshape(tuple(alpha.shape))}


# -- maxout --------------------------------------------------------------------------------------


def _maxout_view(x, attrs):
    axis = attrs["axis"] % 4
    shape = tuple(x.shape)
    post = 1
    for d in shape[axis + 1 :]:
        post *= d
    return shape[axis] // attrs["groups"], attrs["groups"], post


@jit_kernel
def _maxout(x, out, oc, g, post, backward, dout, dx):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        q = i % post
        c = (i // post) % oc
        p = i // (post * oc)
        base = ((p * oc + c) * g) * post + q
        best = x[base]
        at = base
        for k in range(1, g):
            v = x[base + k * post]
            if v > best:
                best = v
                at = base + k * post
        if backward:
            dx[at] = dout[i]
        else:
            out[i] = best
        i += step


def maxout(ins, attrs):
    x = ins["X"]
    oc, g, post = _maxout_view(x, attrs)
    shape = list(x.shape)
    shape[attrs["axis"] % 4] = oc
    out = rt.empty(tuple(shape), x.dtype)
    if out.size:
        _maxout[grid(out.size)](flat(x), flat(out), oc, g, post, False, flat(out), flat(out))
    return {"Out": out}


def maxout_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    oc, g, post = _maxout_view(x, attrs)
    dx = zeros(x.shape, x.dtype)
    if out.size:
        _maxout[grid(out.size)](flat(x), flat(out), oc, g, post, True, flat(dout), flat(dx))
    return {"X@GRAD": dx}
