"""Activation kernels. The activation table's ops (pe_cli/base/activations.py: relu, tanh, exp, ... and their
``<op>_grad``) are structured kernels: each row's meta rule (pe_cli/shapes/activation.py) decides the output and
the variant, its out-kernel (activation_rows.py) computes it into the buffer it is handed; the ops are
registered with both (ops/activation.py), and this module's kernels of those op types are the two as
``kernel(ins, attrs, ctx)`` for the callers that run a kernel by name. softmax and log_softmax, along an
axis, prelu and maxout are written here, and Fluid's second-order ops of five rows (``<op>_grad_grad``)."""

import numpy as np

from ...base.activations_second_order import grad_grad_kernels
from ...base.activations import ROWS, bind
from ...shapes import activation as meta_rules
from .runtime.loops import is_float, lazy, run_in_parts
from ..context import NO_CONTEXT
from ..common import table_getattr
from ..structured import adapter
from ...shapes.activation import params_in
from .activation_rows import FORWARD, GRAD, _erf, libm_sigmoid  # noqa: F401 (libm_sigmoid: fused.py's)

_rows = lazy("_softmax_rows_loops")
_softmax = lazy("_softmax_loops")


# The table's kernels: one per row of the activation table and one per row's gradient (relu, relu_grad,
# leaky_relu, ...), each its row's meta rule (pe_cli/shapes/activation.py) and out-kernel (activation_rows.py)
# as ``kernel(ins, attrs, ctx)`` (kernels/structured.py), and Fluid's second-order ops (relu_grad_grad, ...:
# below). The registry binds the ops to the same two (ops/activation.py); other callers (fused kernels, CUDA's
# host fallbacks) find these by op type as module attributes (``__getattr__``).
_ROW_KERNELS = {name: adapter(meta_rules.FORWARD[name], out, name) for name, out in FORWARD.items()}
_ROW_KERNELS.update({f"{n}_grad": adapter(meta_rules.GRAD[n], out, f"{n}_grad") for n, out in GRAD.items()})


__getattr__ = table_getattr(_ROW_KERNELS, __name__)


def _kernel(name):
    """The module's kernel of the op type ``name``: a name below, else the table's."""
    return globals()[name] if name in globals() else _ROW_KERNELS[name]


def _grad_grad_kernel(second):
    """Fluid's ``<name>_grad_grad``: DDOut is the row's gradient kernel of (u, DDX) (over DDX where
    the enable_inplace pass allows it: so the gradient of u is computed first)."""
    row, first = ROWS[second.name], bind(second.first, _erf=_erf) if second.first else None
    grad = _kernel(f"{second.name}_grad")

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        u, ddx, wanted, outs = ins[row.reads], ins["DDX"], ctx.wanted({"DDOut", second.slot}), {}
        if first is not None and second.slot in wanted:
            outs[second.slot] = first(u, ins[second.given], ddx, *params_in(row, attrs, ddx.dtype))
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
