"""Activation layers with Fluid 1.x signatures: one op each, Out = f(x) elementwise, a layer per row
of the activation table (pe_cli/base/activations.py) taking the row's attributes as keywords with the
op's defaults (``leaky_relu(x, alpha=0.02, name=None)``); plus softmax and log_softmax along an axis,
prelu (a learned slope for x < 0) and maxout."""

import inspect
import warnings

import numpy as np

from ..base.activations import ROWS, TABLE
from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError, PeError
from ..training.initializer import ConstantInitializer
from ..framework.variable import Variable
from .checks import FLOATS, check_variable_and_dtype, fluid_checks
from .creation import assign
from .helper import LayerHelper
from .helper import single
from .manipulation import cast

__all__ = [row.name for row in TABLE] + ["softmax", "log_softmax", "prelu", "maxout"]


# Layers whose Fluid 1.8 check takes more than the floats its generated activations take.
_CHECKED_DTYPES = {"pow": ("int32", "int64", "float32", "float64")}
# Layers Fluid 1.8.5 builds without a dtype check (abs, exp and square run on integers there; gelu and
# erf have no integer kernels, which a run says)
_UNCHECKED = ("abs", "exp", "square", "gelu", "erf")
# Layers that take a numpy array for x too, as a constant (Fluid 1.8's sign assigns it).
_TAKES_ARRAYS = {"sign"}


def _append(op_type, x, name, attrs=None):
    if op_type in _TAKES_ARRAYS and isinstance(x, np.ndarray):
        x = assign(x)
    if op_type not in _UNCHECKED:
        check_variable_and_dtype(x, "x", _CHECKED_DTYPES.get(op_type, FLOATS), op_type)  # as Fluid 1.8's layers
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, attrs or {})
    return out


# Rows whose Fluid 1.8 layer takes only (x, name): their attributes (Paddle 2.x's) follow, by keyword.
_ATTRS_AFTER_NAME = {"softplus"}
# Rows whose Fluid 1.8 layer takes no name at all: pe's ``name`` comes last, by keyword.
_NAME_BY_KEYWORD = {"erf", "gelu", "hard_shrink", "sign", "softshrink", "thresholded_relu"}


def _layer(op_type):
    """``op_type(x, <attributes with their defaults>..., name=None)``: appends the op of the table's row
    ``op_type``."""
    row = ROWS[op_type]
    arg = inspect.Parameter.POSITIONAL_OR_KEYWORD
    kind = inspect.Parameter.KEYWORD_ONLY if row.name in _ATTRS_AFTER_NAME else arg
    attrs = [inspect.Parameter(p.layer_keyword, kind, default=p.default) for p in row.params]
    name = [
        inspect.Parameter("name", inspect.Parameter.KEYWORD_ONLY if row.name in _NAME_BY_KEYWORD else arg, default=None)
    ]
    signature = inspect.Signature([inspect.Parameter("x", arg)] + (name + attrs if kind != arg else attrs + name))
    attr_names = {p.name: p.layer_keyword for p in row.params}

    def layer(*args, **kwargs):
        given = signature.bind(*args, **kwargs)
        given.apply_defaults()
        values = given.arguments
        return _append(row.name, values["x"], values["name"], {a: values[k] for a, k in attr_names.items()})

    layer.__name__ = layer.__qualname__ = row.name
    layer.__signature__ = signature
    layer.__doc__ = f"Appends a '{row.name}' op: {row.doc}"
    return layer


# The table's layers, a row each (pow, swish and log1p: defined below, Fluid's signatures).
relu = _layer("relu")
leaky_relu = _layer("leaky_relu")
elu = _layer("elu")
relu6 = _layer("relu6")
sigmoid = _layer("sigmoid")
logsigmoid = _layer("logsigmoid")
hard_sigmoid = _layer("hard_sigmoid")
tanh = _layer("tanh")
gelu = _layer("gelu")
softplus = _layer("softplus")
mish = _layer("mish")
softsign = _layer("softsign")
sqrt = _layer("sqrt")
rsqrt = _layer("rsqrt")
reciprocal = _layer("reciprocal")
exp = _layer("exp")
log = _layer("log")
square = _layer("square")
abs = _layer("abs")
sign = _layer("sign")
floor = _layer("floor")
ceil = _layer("ceil")
round = _layer("round")
erf = _layer("erf")
cos = _layer("cos")
sin = _layer("sin")
acos = _layer("acos")
asin = _layer("asin")
atan = _layer("atan")
cosh = _layer("cosh")
sinh = _layer("sinh")
selu = _layer("selu")
stanh = _layer("stanh")
brelu = _layer("brelu")
soft_relu = _layer("soft_relu")
thresholded_relu = _layer("thresholded_relu")
hard_shrink = _layer("hard_shrink")
softshrink = _layer("softshrink")
hard_swish = _layer("hard_swish")
tanh_shrink = _layer("tanh_shrink")
_pow_of_number = _layer("pow")


def pow(x, factor=1.0, name=None):  # noqa: A001 -- Fluid's name
    """x ** factor elementwise: ``factor`` a number, or a float32 Variable of one value (Fluid 1.8's
    FactorTensor, read at run time)."""
    if not isinstance(factor, Variable):
        return _pow_of_number(x, factor, name)
    check_variable_and_dtype(x, "x", _CHECKED_DTYPES["pow"], "pow")
    check_variable_and_dtype(factor, "factor", ("float32",), "pow")
    factor.stop_gradient = True
    helper = LayerHelper("pow", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("pow", {"X": [x], "FactorTensor": [factor]}, {"Out": [out]})
    return out


def swish(x, beta=1.0, name=None):
    """x * sigmoid(x), as Fluid 1.8.5 computes it: its layer gives ``beta`` to the op as an attribute
    ``slope`` the op does not have, so the op keeps beta = 1 whatever is given (docs/COMPAT.md); a
    warning says so when another beta is given."""
    if beta != 1.0:
        warnings.warn(
            f"fluid.layers.swish: beta={beta} is ignored, as Fluid 1.8.5 ignores it (its layer passes "
            f"it as 'slope', which the swish op lacks): the op computes x * sigmoid(x)",
            stacklevel=2,
        )
    return _append("swish", x, name, {"beta": 1.0})


def log1p(x, out=None, name=None):
    """ln(1 + x), elementwise, exact for small x (Fluid 1.8's signature: the result written into ``out``
    when given)."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "log1p")
    helper = LayerHelper("log1p", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype) if out is None else out
    helper.append_op("log1p", {"X": [x]}, {"Out": [out]})
    return out


def softmax(input, use_cudnn=False, name=None, axis=-1):
    """Out = exp(input) / sum(exp(input)) along ``axis`` (default the last)."""
    check_variable_and_dtype(input, "input", FLOATS, "softmax")
    helper = LayerHelper("softmax", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("softmax", {"X": [input]}, {"Out": [out]}, {"axis": axis, "use_cudnn": use_cudnn})
    return out


@fluid_checks("log_softmax", input=("float16", "float32", "float64"))
def log_softmax(input, axis=None, dtype=None, name=None):
    """Out = log(softmax(input)) along ``axis`` (None: the last), ``input`` cast to ``dtype`` first when
    given: a softmax op and a log op, as Fluid 1.8.5's layer builds it (Paddle 2.x's
    paddle.nn.functional.log_softmax is the one log_softmax op)."""
    if dtype is not None and convert_dtype(dtype) != input.dtype:
        input = cast(input, dtype)
    return _append(
        "log", _append("softmax", input, None, {"axis": -1 if axis is None else axis, "use_cudnn": False}), name
    )


def known_shape(layer, input, dims):
    shape = input.shape
    if shape is None or len(shape) < 2 or any(d is None or d < 0 for d in shape[1:dims]):
        raise PeError(f"{layer}: input '{input.name}' {list(shape or [])} needs known dims after the batch dim")
    return list(shape)


def prelu(x, mode, param_attr=None, name=None):
    """Out = x where x > 0, else alpha * x, with alpha a parameter initialized to 0.25: one for all
    of x ('all'), one per channel of dim 1 ('channel'), or one per element of x's non-batch dims
    ('element')."""
    check_variable_and_dtype(x, "x", FLOATS, "prelu")
    if mode not in ("all", "channel", "element"):
        raise PeError(f"prelu: mode={mode!r} must be 'all', 'channel' or 'element'")
    helper = LayerHelper("prelu", x=x, param_attr=param_attr, name=name)
    if mode == "all":
        alpha_shape = [1]
    else:
        shape = known_shape("prelu", x, 2 if mode == "channel" else len(x.shape or ()))
        alpha_shape = [1, shape[1]] + [1] * (len(shape) - 2) if mode == "channel" else [1] + shape[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, x.dtype, default_initializer=ConstantInitializer(0.25))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("prelu", {"X": [x], "Alpha": [alpha]}, {"Out": [out]}, {"mode": mode})
    return out


def maxout(x, groups, name=None, axis=1):
    """The max over each run of ``groups`` channels (axis 1: NCHW, -1 or 3: NHWC)."""
    check_variable_and_dtype(x, "x", FLOATS, "maxout")
    if axis not in (1, -1, 3):
        raise ArgumentValueError(f"maxout: axis={axis!r} must be 1 (NCHW) or -1 / 3 (NHWC)")
    return single("maxout", x, {"X": [x]}, {"groups": groups, "axis": axis}, name=name)
