"""Activations: Out = f(X) elementwise. Each grad op reads what its derivative needs (X or Out).
softmax and log_softmax (normalised along ``axis``) live here too."""
import math
import numbers

from .registry import Attr, fmt_shape, register

_FLOATS = ("float16", "float32", "float64")


def finite_number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(v)


def _number(default):
    return Attr(default, finite_number, "a finite number")


def _infer_elementwise(name, dtypes):
    def infer(ctx):
        dtype = ctx.dtype("X")
        if dtypes is not None and dtype not in dtypes:
            ctx.fail(f"X is {dtype}, but {name} takes {', '.join(dtypes)}; cast it first")
        ctx.set_output("Out", ctx.shape("X"), dtype, lod_level=ctx.input_var("X").lod_level)
    return infer


def _activation(name, doc, uses="X", attrs=None, dtypes=_FLOATS, differentiable=True, infer=None,
                traits=("activation",)):
    """Registers ``name`` and ``name_grad``; the grad reads X or Out (``uses``) and Out@GRAD.
    ``dtypes``: the input dtypes accepted (None: any); ``differentiable=False``: no gradient."""
    attrs = attrs or {}

    def grad(g):
        g.op(f"{name}_grad", {uses: g.input("X") if uses == "X" else g.output("Out"),
                              "Out@GRAD": g.out_grad("Out")},
             {"X@GRAD": g.in_grad("X")}, g.attrs)

    register(name, kernel_module="activation",
             inputs=["X"], outputs=["Out"], attrs=attrs, infer=infer or _infer_elementwise(name, dtypes),
             grad=grad if differentiable else None, grad_reads=(uses,) if differentiable else (), doc=doc,
             traits=traits)
    if differentiable:
        register(f"{name}_grad", kernel_module="activation", inputs=[uses, "Out@GRAD"], outputs=["X@GRAD"], attrs=attrs,
                 infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")))


_activation("relu", "Out = max(X, 0).", uses="Out", dtypes=None)
_activation("leaky_relu", "Out = X where X > 0, alpha * X elsewhere.", attrs={"alpha": _number(0.02)})
_activation("elu", "Out = X where X > 0, alpha * (exp(X) - 1) elsewhere.", attrs={"alpha": _number(1.0)})
_activation("relu6", "Out = min(max(X, 0), threshold).", uses="Out",
            attrs={"threshold": Attr(6.0, lambda v: finite_number(v) and v > 0, "a finite number > 0")})
_activation("sigmoid", "Out = 1 / (1 + exp(-X)).", uses="Out")
_activation("logsigmoid", "Out = log(1 / (1 + exp(-X))) = -softplus(-X).")
_activation("hard_sigmoid", "Out = clip(slope * X + offset, 0, 1).", uses="Out",
            attrs={"slope": _number(0.2), "offset": _number(0.5)})
_activation("swish", "Out = X * sigmoid(beta * X).", attrs={"beta": _number(1.0)})
_activation("tanh", "Out = tanh(X).", uses="Out")
_activation("gelu", "Out = X * Phi(X): 0.5 X (1 + erf(X / sqrt 2)), or with approximate=True "
            "0.5 X (1 + tanh(sqrt(2 / pi) (X + 0.044715 X^3))).",
            attrs={"approximate": Attr(False, choices=(False, True))})
_activation("softplus", "Out = log(1 + exp(X)), computed without overflow.")
_activation("softsign", "Out = X / (1 + |X|).")
_activation("sqrt", "Out = sqrt(X).", uses="Out")
_activation("rsqrt", "Out = 1 / sqrt(X).", uses="Out")
_activation("reciprocal", "Out = 1 / X.", uses="Out")
_activation("exp", "Out = exp(X).", uses="Out")
_activation("log", "Out = ln(X).")
_activation("square", "Out = X * X.", dtypes=None)
_activation("abs", "Out = |X|; the gradient at 0 is 0.", dtypes=None)
_activation("sign", "Out = -1, 0 or 1 by the sign of X. No gradient.", dtypes=None, differentiable=False)


def _infer_softmax(name):
    def infer(ctx):
        shape, axis = ctx.shape("X"), ctx.attrs["axis"]
        if ctx.dtype("X") not in _FLOATS:
            ctx.fail(f"X is {ctx.dtype('X')}, but {name} takes a float tensor; cast it first")
        if not -len(shape) <= axis < len(shape):
            ctx.fail(f"axis={axis} is out of range for X {fmt_shape(shape)} "
                     f"(expected {-len(shape)} <= axis < {len(shape)})")
        ctx.set_output("Out", shape, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    return infer


_AXIS = {"axis": Attr(-1, lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool), "an int")}
_activation("softmax", "Out = exp(X) / sum(exp(X)) along axis (default the last).", uses="Out",
            attrs=_AXIS, infer=_infer_softmax("softmax"))
_activation("log_softmax", "Out = X - log(sum(exp(X))) along axis (default the last).", uses="Out",
            attrs=_AXIS, infer=_infer_softmax("log_softmax"))
