"""Activation kernels, made from the rows of the activation table (pe_cli/base/activations.py): each
row's numpy forms, results in the input's dtype (attributes are cast to it so a float32 input stays
float32). Each ``<op>_grad`` reads X or Out, as the row says, and Out@GRAD. A row naming a
``cpu_loop`` (relu, the hot one) runs that numba loop for float32/float64 (_pointwise_loops.py),
in parallel chunks for large arrays; float32 tanh and sigmoid run _activation_loops' vectorised
loops, and their gradients (rows with ``grad_loop``) one numba pass of the row's derivative. softmax and log_softmax, along an axis, prelu and maxout are
written here, and Fluid's second-order ops of five rows (``<op>_grad_grad``)."""

import functools
import math

import numpy as np

from ...base.activations_second_order import grad_grad_kernels
from ...base.activations import ROWS, bind, kernels
from ...base.activations_paddle2_forms import PADDLE2_FORMS
from . import _replicas
from .runtime.loops import flat, is_float, lazy, loop_or, out_buffer, parallel_parts, parallel_ready, run_in_parts
from ..context import NO_CONTEXT
from ..common import table_getattr

_loops = lazy("_pointwise_loops")
_rows = lazy("_softmax_rows_loops")
_act_loops = lazy("_activation_loops")
_softmax = lazy("_softmax_loops")


@functools.lru_cache(maxsize=None)
def _erf_ufunc():
    """A numba ufunc of math.erf (numpy has none), compiled on first use."""
    import numba

    @numba.vectorize(["float32(float32)", "float64(float64)"], nopython=True)
    def erf(v):
        return math.erf(v)

    return erf


def _erf(x):
    """erf of an array, bound into the table's forms that call it (gelu)."""
    if x.dtype == np.float16:
        return _erf_ufunc()(x.astype(np.float32)).astype(np.float16)
    return _erf_ufunc()(x)


def _run_loop(loop, out, *arrays):
    """``out`` filled by the numba loop named ``loop`` over flat ``arrays`` (its parallel twin
    ``<loop>_parallel`` for large ones); elementwise, so ``out`` may be the last of ``arrays``."""
    parts, args = parallel_parts(out.size), (*arrays, out.reshape(-1))
    if parts > 1 and parallel_ready(getattr(_loops(), loop + "_parallel"), *args, parts):
        getattr(_loops(), loop + "_parallel")(*args, parts)
    else:
        loop_or(getattr(_replicas, loop, None), getattr(_loops(), loop), *args)(*args)
    return out


def _params(names, attrs, dtype):
    """A row's attributes: numbers in ``dtype`` (float32 stays float32), flags as bools."""
    return [v if isinstance(v, bool) else dtype.type(v) for v in (attrs[n] for n in names)]


def _forward_kernel(row):
    forward, loop, names = bind(row.forward, _erf=_erf), row.cpu_loop, [p.name for p in row.params]

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        x = ins["X"]
        if loop and is_float(x):
            return {"Out": _run_loop(loop, out_buffer(ctx, x, x.shape, x.dtype), flat(x))}
        out = forward(x, *_params(names, attrs, x.dtype)) if names else forward(x)
        return {"Out": out if out.dtype == x.dtype else out.astype(x.dtype)}  # exp of ints: ints, as Fluid's

    return kernel


def _grad_kernel(row):
    derivative, reads, names = bind(row.derivative, _erf=_erf), row.reads, [p.name for p in row.params]
    loop = row.cpu_loop + "_grad" if row.cpu_loop else f"{row.name}_grad" if row.grad_loop else ""

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        a, dout = ins[reads] if reads else ins["Out@GRAD"], ins["Out@GRAD"]  # (reads nothing: dOut twice)
        if loop and is_float(dout, a) and a.shape == dout.shape:
            return {"X@GRAD": _run_loop(loop, out_buffer(ctx, dout, dout.shape, dout.dtype), flat(a), flat(dout))}
        return {"X@GRAD": derivative(a, dout, *_params(names, attrs, dout.dtype)) if names else derivative(a, dout)}

    return kernel


# The table's kernels: one per row of the activation table and one per row's gradient (relu, relu_grad,
# leaky_relu, ...), and Fluid's second-order ops (relu_grad_grad, ...: below). The registry finds them
# by op type as module attributes (``__getattr__``), where no name below is the op type's.
_ROW_KERNELS = kernels(_forward_kernel, _grad_kernel)


__getattr__ = table_getattr(_ROW_KERNELS, __name__)


def _kernel(name):
    """The module's kernel of the op type ``name``: a name below, else the table's."""
    return globals()[name] if name in globals() else _ROW_KERNELS[name]


def _paddle2_forms(name):
    """``name``'s kernels computing Paddle 2.x's formula where the op follows Paddle 2.6 and its attributes
    are where the two differ (activations.PADDLE2_FORMS), the table's otherwise."""
    differs, forward, derivative = PADDLE2_FORMS[name]
    table, table_grad = _ROW_KERNELS[name], _ROW_KERNELS[name + "_grad"]

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        if ctx.paddle2 and differs(attrs):
            return {"Out": forward(ins["X"], attrs).astype(ins["X"].dtype, copy=False)}
        return table(ins, attrs)

    def grad(ins, attrs, ctx=NO_CONTEXT):
        if derivative is not None and ctx.paddle2 and differs(attrs):
            return {"X@GRAD": derivative(ins["X"], ins["Out@GRAD"], attrs).astype(ins["Out@GRAD"].dtype, copy=False)}
        return table_grad(ins, attrs)

    kernel.__name__, grad.__name__ = name, name + "_grad"
    return kernel, grad


leaky_relu, leaky_relu_grad = _paddle2_forms("leaky_relu")
elu, elu_grad = _paddle2_forms("elu")
hard_shrink, hard_shrink_grad = _paddle2_forms("hard_shrink")


def _float32_loop(name):
    """The ``name`` op's kernel: float32 through _activation_loops' vectorised loop of that name
    (within 2 ulps of float64 rounded, as numpy's; numpy's float32 tanh took 2.6 ms over the seq2seq
    attention's [64, 40, 256] where the loop takes 1.3 on one thread, its sigmoid's seven passes
    0.37 ms over an LSTM cell's [256, 256] gate), other dtypes the table's kernel."""
    table = _ROW_KERNELS[name]

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        x = ins["X"]
        if x.dtype == np.float32 and x.size:
            out = out_buffer(ctx, x, x.shape, x.dtype)
            run_in_parts(_act_loops(), name, x.size, flat(x), out.reshape(-1))
            if name == "sigmoid":
                _libm_tail(flat(x), out.reshape(-1))
            return {"Out": out}
        return table(ins, attrs)

    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _libm_tail(x, out):
    """Fluid's float32 sigmoid (Eigen, 1 / (1 + exp(-x))) computes its exps eight at a time by Cephes'
    polynomial, as _activation_loops does, and the last size % 8 by libm's expf, whose value (within
    half an ulp of the exact) these take: the same bits as Fluid's (op_test's float32 finite
    differences of test_activation_op.py's TestSigmoid, within 1 %, depend on the last bits)."""
    tail = x.size % 8
    if tail:
        out[-tail:] = libm_sigmoid(x[-tail:])


def libm_sigmoid(x):
    """float32 1 / (1 + exp(-x)) with exp correctly rounded to float32 (libm's expf)."""
    with np.errstate(over="ignore"):  # exp of x < -88 is inf in float32: the sigmoid is 0
        e = np.exp(-x.astype(np.float64)).astype(np.float32)
    return np.float32(1) / (np.float32(1) + e)


tanh, sigmoid = _float32_loop("tanh"), _float32_loop("sigmoid")


def _grad_grad_kernel(second):
    """Fluid's ``<name>_grad_grad``: DDOut is the row's gradient kernel of (u, DDX) (over DDX where
    the enable_inplace pass allows it: so the gradient of u is computed first)."""
    row, first = ROWS[second.name], bind(second.first, _erf=_erf) if second.first else None
    grad, names = _kernel(f"{second.name}_grad"), [p.name for p in row.params]

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        u, ddx, wanted, outs = ins[row.reads], ins["DDX"], ctx.wanted({"DDOut", second.slot}), {}
        if first is not None and second.slot in wanted:
            outs[second.slot] = first(u, ins[second.given], ddx, *_params(names, attrs, ddx.dtype))
        if "DDOut" in wanted:
            outs["DDOut"] = grad({row.reads: u, "Out@GRAD": ddx}, attrs)["X@GRAD"]
        return outs

    return kernel


_ROW_KERNELS.update(grad_grad_kernels(_grad_grad_kernel))  # relu_grad_grad, elu_grad_grad, ...


def softmax(ins, attrs):
    """As Fluid's CPU kernel (its ValueClip): the shifted logits are clipped at -64, so no probability
    is below exp(-64) (about 1.6e-28) and a following log stays finite. Along the last axis of float
    data, by numba loops around numpy's exp (_softmax_loops.py): numpy's reductions over
    short rows (an attention's 28 keys) cost more per row than the row's arithmetic."""
    x = ins["X"]
    axis = attrs["axis"]
    if _last_axis_rows(x, axis):
        out, rows = np.empty_like(x), (-1, x.shape[-1])
        run_in_parts(_softmax(), "softmax_shift", x.size, x.reshape(rows), SOFTMAX_FLOOR, out.reshape(rows))
        np.exp(out, out=out)
        run_in_parts(_softmax(), "softmax_scale", x.size, out.reshape(rows))
        return {"Out": out}
    e = np.exp(np.maximum(x - x.max(axis=axis, keepdims=True), SOFTMAX_FLOOR))
    return {"Out": e / e.sum(axis=axis, keepdims=True)}


SOFTMAX_FLOOR = -64.0


def _last_axis_rows(x, axis, *others):
    return (
        axis % max(x.ndim, 1) == x.ndim - 1
        and x.size > 0
        and is_float(x, *others)
        and x.flags.c_contiguous
        and all(o.flags.c_contiguous and o.shape == x.shape for o in others)
    )


def softmax_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    if _last_axis_rows(out, attrs["axis"], dout):
        dx = np.empty_like(out)
        rows = (-1, out.shape[-1])
        run_in_parts(_softmax(), "softmax_rows_grad", out.size, out.reshape(rows), dout.reshape(rows), dx.reshape(rows))
        return {"X@GRAD": dx}
    return {"X@GRAD": out * (dout - (dout * out).sum(axis=attrs["axis"], keepdims=True))}


def log_softmax(ins, attrs):
    """Along the last axis of float32 data, rows of _softmax_rows_loops (vectorised exponentials, on
    the device's threads for large arrays; the beam search's [256, 10,000] scores); else numpy's passes."""
    x = ins["X"]
    axis = attrs["axis"]
    if x.dtype == np.float32 and _last_axis_rows(x, axis):
        out, rows = np.empty_like(x), (-1, x.shape[-1])
        run_in_parts(_rows(), "log_softmax", x.size, x.reshape(rows), out.reshape(rows))
        return {"Out": out}
    out = x - x.max(axis=axis, keepdims=True)
    if out.dtype.kind != "f":  # integers: numpy's exp gives float64, as the result then
        out = out.astype(np.float64)
    sums = np.exp(out).sum(axis=axis, keepdims=True)
    out -= np.log(sums, out=sums)  # in place: one [rows, classes] array fewer (the beam's [256, 10,000])
    return {"Out": out}


def log_softmax_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout - np.exp(out) * dout.sum(axis=attrs["axis"], keepdims=True)}


# -- prelu ------------------------------------------------------------------------------------------


def alpha_view(alpha, x_shape, mode):
    """Alpha shaped to broadcast against X."""
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel":
        return alpha.reshape((1, x_shape[1]) + (1,) * (len(x_shape) - 2))
    return alpha.reshape((1,) + tuple(x_shape[1:]))


def prelu(ins, attrs):
    x = ins["X"]
    a = alpha_view(ins["Alpha"], x.shape, attrs["mode"])
    return {"Out": np.where(x > 0, x, a * x).astype(x.dtype, copy=False)}


def prelu_grad(ins, attrs):
    x, alpha, dout = ins["X"], ins["Alpha"], ins["Out@GRAD"]
    mode = attrs["mode"]
    pos = x > 0
    dx = np.where(pos, dout, alpha_view(alpha, x.shape, mode) * dout).astype(x.dtype, copy=False)
    neg = np.where(pos, 0, x * dout)
    axes = {"all": None, "channel": (0,) + tuple(range(2, x.ndim)), "element": (0,)}[mode]
    dalpha = neg.sum(axis=axes).reshape(alpha.shape).astype(alpha.dtype, copy=False)
    return {"X@GRAD": dx, "Alpha@GRAD": dalpha}


# -- maxout --------------------------------------------------------------------------------------


def _grouped(x, attrs, groups):
    """X seen as [pre, C/groups, groups, post] around its channel dim."""
    axis = attrs["axis"] % 4 if "axis" in attrs else 1
    pre, c, post = int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1 :]))
    return x.reshape(pre, c // groups, groups, post)


def maxout(ins, attrs):
    x = ins["X"]
    g = _grouped(x, attrs, attrs["groups"])
    shape = list(x.shape)
    shape[attrs["axis"] % 4] //= attrs["groups"]
    return {"Out": g.max(axis=2).reshape(shape)}


def maxout_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    g = _grouped(x, attrs, attrs["groups"])
    first = g.argmax(axis=2)
    dx = np.zeros(g.shape, dtype=x.dtype)
    np.put_along_axis(dx, first[:, :, None, :], dout.reshape(first.shape)[:, :, None, :], axis=2)
    return {"X@GRAD": dx.reshape(x.shape)}
