"""Activation layers with Fluid 1.x signatures: one op each, Out = f(x) elementwise, a layer per row
of the activation table (pe_cli/base/activations.py) taking the row's attributes as keywords with the
op's defaults (``leaky_relu(x, alpha=0.02, name=None)``); plus softmax and log_softmax along an axis,
prelu (a learned slope for x < 0) and maxout."""
import inspect

from ..base.activations import TABLE
from ..base.errors import PeError
from ..training.initializer import ConstantInitializer
from .helper import LayerHelper
from .helper import _single

__all__ = [row.name for row in TABLE] + ["softmax", "log_softmax", "prelu", "maxout"]


def _append(op_type, x, name, attrs=None):
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, attrs or {})
    return out


def _layer(row):
    """``row.name(x, <attributes with their defaults>..., name=None)``: appends the row's op."""
    arg = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature([inspect.Parameter("x", arg)]
                                  + [inspect.Parameter(p.layer_keyword, arg, default=p.default) for p in row.params]
                                  + [inspect.Parameter("name", arg, default=None)])
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


globals().update({row.name: _layer(row) for row in TABLE})


def softmax(input, use_cudnn=False, name=None, axis=-1):
    """Out = exp(input) / sum(exp(input)) along ``axis`` (default the last)."""
    helper = LayerHelper("softmax", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("softmax", {"X": [input]}, {"Out": [out]}, {"axis": axis, "use_cudnn": use_cudnn})
    return out


def log_softmax(input, axis=-1, name=None):
    """Out = input - log(sum(exp(input))) along ``axis`` (default the last)."""
    return _append("log_softmax", input, name, {"axis": axis})


def _known_shape(layer, input, dims):
    shape = input.shape
    if shape is None or len(shape) < 2 or any(d is None or d < 0 for d in shape[1:dims]):
        raise PeError(f"{layer}: input '{input.name}' {list(shape or [])} needs known dims after the batch dim")
    return list(shape)


def prelu(x, mode, param_attr=None, name=None):
    """Out = x where x > 0, else alpha * x, with alpha a parameter initialized to 0.25: one for all
    of x ('all'), one per channel of dim 1 ('channel'), or one per element of x's non-batch dims
    ('element')."""
    if mode not in ("all", "channel", "element"):
        raise PeError(f"prelu: mode={mode!r} must be 'all', 'channel' or 'element'")
    helper = LayerHelper("prelu", x=x, param_attr=param_attr, name=name)
    if mode == "all":
        alpha_shape = [1]
    else:
        shape = _known_shape("prelu", x, 2 if mode == "channel" else len(x.shape or ()))
        alpha_shape = [1, shape[1]] + [1] * (len(shape) - 2) if mode == "channel" else [1] + shape[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, x.dtype, default_initializer=ConstantInitializer(0.25))
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("prelu", {"X": [x], "Alpha": [alpha]}, {"Out": [out]}, {"mode": mode})
    return out


def maxout(x, groups, name=None, axis=1):
    """The max over each run of ``groups`` channels (axis 1: NCHW, -1 or 3: NHWC)."""
    return _single("maxout", x, {"X": [x]}, {"groups": groups, "axis": axis}, name=name)
