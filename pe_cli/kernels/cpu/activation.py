"""Activation kernels. The activation table's ops (pe_cli/base/activations.py: relu, tanh, exp, ... and their
``<op>_grad``) are structured kernels: each row's meta rule (pe_cli/shapes/activation.py) decides the output and
the variant, its out-kernel (activation_rows.py) computes it into the buffer it is handed; the ops are
registered with both (ops/activation.py), and this module's kernels of those op types are the two as
``kernel(ins, attrs, ctx)`` for the callers that run a kernel by name; so are softmax and log_softmax, along an
axis (shapes/softmax.py, softmax.py). prelu, maxout, their gradients and Fluid's second-order ops of five rows
(``<op>_grad_grad``) are structured kernels too: their out-kernels here (numpy written into the buffers handed; a
second-order op's DDOut by its row's gradient out-kernel), their meta rules in shapes/activation.py."""

import numpy as np

from ...base.activations_second_order import SECOND_ORDER
from ...base.activations import ROWS, bind
from ...shapes import activation as meta_rules, softmax as softmax_rules
from . import softmax as cpu_softmax
from ..common import table_getattr
from ..structured import adapter, fresh_output
from ...shapes.activation import params_in
from .launches import by_variant
from .activation_rows import FORWARD, GRAD, _erf, libm_sigmoid  # noqa: F401 (libm_sigmoid: fused.py's)

# The table's kernels: one per row of the activation table and one per row's gradient (relu, relu_grad,
# leaky_relu, ...), each its row's meta rule (pe_cli/shapes/activation.py) and out-kernel (activation_rows.py)
# as ``kernel(ins, attrs, ctx)`` (kernels/structured.py), and Fluid's second-order ops (relu_grad_grad, ...:
# below). The registry binds the ops to the same two (ops/activation.py); other callers (fused kernels, CUDA's
# host fallbacks) find these by op type as module attributes (``__getattr__``).
_ROW_KERNELS = {name: adapter(meta_rules.FORWARD[name], out, name) for name, out in FORWARD.items()}
_ROW_KERNELS.update({f"{n}_grad": adapter(meta_rules.GRAD[n], out, f"{n}_grad") for n, out in GRAD.items()})


__getattr__ = table_getattr(_ROW_KERNELS, __name__)


def _grad_grad_out(second):
    """The out-kernel of Fluid's ``<name>_grad_grad``: the gradient of u first (``second.first``), then DDOut, the
    row's gradient out-kernel of (u, DDX) with its Meta (``meta.args[0]``) into DDOut's buffer (over DDX where
    the executor lets it: so the gradient of u reads DDX first)."""
    row, first, grad = ROWS[second.name], bind(second.first, _erf=_erf) if second.first else None, GRAD[second.name]

    def out(ins, outs, attrs, meta):
        (inner,) = meta.args
        u, ddx = ins[row.reads], ins["DDX"]
        if second.slot in meta.outputs:
            result = first(u, ins[second.given], ddx, *params_in(row, attrs, ddx.dtype))
            if meta.fresh:
                outs[second.slot] = fresh_output(result, meta.outputs[second.slot], tuple(ins.values()))
            else:
                np.copyto(outs[second.slot], result, casting="unsafe")
        if "DDOut" in meta.outputs:
            given = {name: outs[name] for name in inner.scratch}
            if not meta.fresh:
                given["X@GRAD"] = outs["DDOut"]
            grad({row.reads: u, "Out@GRAD": ddx}, given, attrs, inner)
            outs["DDOut"] = given["X@GRAD"]

    out.__name__ = out.__qualname__ = f"{second.name}_grad_grad_out"
    return out


GRAD_GRAD = {s.name: _grad_grad_out(s) for s in SECOND_ORDER}
_ROW_KERNELS.update(  # relu_grad_grad, elu_grad_grad, ...
    {f"{n}_grad_grad": adapter(meta_rules.GRAD_GRAD[n], out, f"{n}_grad_grad") for n, out in GRAD_GRAD.items()}
)


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


def _prelu(ins, outs, attrs, meta):
    """Out = Alpha * X, then X where X > 0 (numpy's where of the two, written into Out)."""
    x, out = ins["X"], outs["Out"]
    np.multiply(alpha_view(ins["Alpha"], x.shape, meta.args[0]), x, out=out, casting="unsafe")
    np.copyto(out, x, casting="unsafe", where=x > 0)


def _prelu_grad(ins, outs, attrs, meta):
    """X@GRAD = dOut where X > 0, else Alpha * dOut; Alpha@GRAD: the sum of X * dOut where X <= 0 over the
    axes ``meta.args[1]`` (numpy's sum, then cast into the buffer)."""
    x, alpha, dout = ins["X"], ins["Alpha"], ins["Out@GRAD"]
    mode, axes = meta.args
    pos, dx = x > 0, outs["X@GRAD"]
    np.multiply(alpha_view(alpha, x.shape, mode), dout, out=dx, casting="unsafe")
    np.copyto(dx, dout, casting="unsafe", where=pos)
    neg = np.where(pos, 0, x * dout)
    np.copyto(outs["Alpha@GRAD"], neg.sum(axis=axes).reshape(alpha.shape), casting="unsafe")


def _maxout(ins, outs, attrs, meta):
    """Out: the max of each group of channels, X seen as [pre, C/groups, groups, post]."""
    (view,) = meta.args
    np.max(ins["X"].reshape(view), axis=2, out=outs["Out"].reshape(view[:2] + view[3:]))


def _maxout_grad(ins, outs, attrs, meta):
    """X@GRAD: dOut at each group's first maximum, zeros elsewhere."""
    (view,) = meta.args
    first = ins["X"].reshape(view).argmax(axis=2)
    dx = outs["X@GRAD"].reshape(view)
    dx.fill(0)
    np.put_along_axis(dx, first[:, :, None, :], ins["Out@GRAD"].reshape(first.shape)[:, :, None, :], axis=2)


PRELU = by_variant("prelu_out", None, out=_prelu)
PRELU_GRAD = by_variant("prelu_grad_out", None, out=_prelu_grad)
MAXOUT = by_variant("maxout_out", None, out=_maxout)
MAXOUT_GRAD = by_variant("maxout_grad_out", None, out=_maxout_grad)
prelu = adapter(meta_rules.prelu_meta, PRELU, "prelu")
prelu_grad = adapter(meta_rules.prelu_grad_meta, PRELU_GRAD, "prelu_grad")
maxout = adapter(meta_rules.maxout_meta, MAXOUT, "maxout")
maxout_grad = adapter(meta_rules.maxout_grad_meta, MAXOUT_GRAD, "maxout_grad")
