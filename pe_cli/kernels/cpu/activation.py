"""Activation kernels. The activation table's ops (pe_cli/base/activations.py: relu, tanh, exp, ... and their
``<op>_grad``) are structured kernels: each row's meta rule (pe_cli/shapes/activation.py) decides the output and
the variant, its out-kernel (activation_rows.py) computes it into the buffer it is handed; the ops are
registered with both (ops/activation.py), and this module's kernels of those op types are the two as
``kernel(ins, attrs, ctx)`` for the callers that run a kernel by name; so are softmax and log_softmax, along an
axis (shapes/softmax.py, softmax.py). prelu and maxout are written here, and Fluid's second-order ops of five rows
(``<op>_grad_grad``)."""

import numpy as np

from ...base.activations_paddle2_forms import prelu_mode
from ...base.activations_second_order import grad_grad_kernels
from ...base.activations import ROWS, bind
from ...shapes import activation as meta_rules, softmax as softmax_rules
from . import softmax as cpu_softmax
from ..context import NO_CONTEXT
from ..common import table_getattr
from ..structured import adapter
from ...shapes.activation import params_in
from .activation_rows import FORWARD, GRAD, _erf, libm_sigmoid  # noqa: F401 (libm_sigmoid: fused.py's)

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


# softmax, log_softmax and their gradients: their meta rules (pe_cli/shapes/softmax.py) and out-kernels
# (softmax.py) as ``kernel(ins, attrs, ctx)``, for the callers that run them by name (attention.py's softmax)
softmax = adapter(softmax_rules.softmax_meta, cpu_softmax.SOFTMAX, "softmax")
softmax_grad = adapter(softmax_rules.softmax_grad_meta, cpu_softmax.SOFTMAX_GRAD, "softmax_grad")
log_softmax = adapter(softmax_rules.log_softmax_meta, cpu_softmax.LOG_SOFTMAX, "log_softmax")
log_softmax_grad = adapter(softmax_rules.log_softmax_grad_meta, cpu_softmax.LOG_SOFTMAX_GRAD, "log_softmax_grad")


# -- prelu ------------------------------------------------------------------------------------------


def alpha_view(alpha, x_shape, mode):
    """Alpha shaped to broadcast against X."""
    if mode == "all":
        return alpha.reshape(())
    if mode == "channel_last":
        return alpha.reshape((1,) * (len(x_shape) - 1) + (x_shape[-1],))
    if mode == "channel":
        return alpha.reshape((1, x_shape[1]) + (1,) * (len(x_shape) - 2))
    return alpha.reshape((1,) + tuple(x_shape[1:]))


def prelu(ins, attrs):
    x = ins["X"]
    a = alpha_view(ins["Alpha"], x.shape, prelu_mode(attrs))
    return {"Out": np.where(x > 0, x, a * x).astype(x.dtype, copy=False)}


def prelu_grad(ins, attrs):
    x, alpha, dout = ins["X"], ins["Alpha"], ins["Out@GRAD"]
    mode = prelu_mode(attrs)
    pos = x > 0
    dx = np.where(pos, dout, alpha_view(alpha, x.shape, mode) * dout).astype(x.dtype, copy=False)
    neg = np.where(pos, 0, x * dout)
    last = tuple(range(x.ndim - 1))
    axes = {"all": None, "channel": (0,) + tuple(range(2, x.ndim)), "channel_last": last, "element": (0,)}[mode]
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
