"""Activation layers with Fluid 1.x signatures: one op each, Out = f(x) elementwise, plus softmax
and log_softmax along an axis."""
__all__ = ["relu", "leaky_relu", "elu", "relu6", "sigmoid", "logsigmoid", "hard_sigmoid", "swish", "tanh",
           "gelu", "softplus", "softsign", "sqrt", "rsqrt", "reciprocal", "exp", "log", "square", "abs", "sign",
           "softmax", "log_softmax"]
from .helper import LayerHelper


def _append(op_type, x, name, attrs=None):
    helper = LayerHelper(op_type, x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, attrs or {})
    return out


def _unary_layer(op_type):
    def layer(x, name=None):
        return _append(op_type, x, name)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = f"Appends a '{op_type}' op: Out = {op_type}(x), elementwise."
    return layer


relu = _unary_layer("relu")
sigmoid = _unary_layer("sigmoid")
logsigmoid = _unary_layer("logsigmoid")
tanh = _unary_layer("tanh")
softplus = _unary_layer("softplus")
softsign = _unary_layer("softsign")
sqrt = _unary_layer("sqrt")
rsqrt = _unary_layer("rsqrt")
reciprocal = _unary_layer("reciprocal")
exp = _unary_layer("exp")
log = _unary_layer("log")
square = _unary_layer("square")
abs = _unary_layer("abs")
sign = _unary_layer("sign")


def leaky_relu(x, alpha=0.02, name=None):
    """Out = x where x > 0, alpha * x elsewhere."""
    return _append("leaky_relu", x, name, {"alpha": alpha})


def elu(x, alpha=1.0, name=None):
    """Out = x where x > 0, alpha * (exp(x) - 1) elsewhere."""
    return _append("elu", x, name, {"alpha": alpha})


def relu6(x, threshold=6.0, name=None):
    """Out = min(max(x, 0), threshold)."""
    return _append("relu6", x, name, {"threshold": threshold})


def hard_sigmoid(x, slope=0.2, offset=0.5, name=None):
    """Out = clip(slope * x + offset, 0, 1)."""
    return _append("hard_sigmoid", x, name, {"slope": slope, "offset": offset})


def swish(x, beta=1.0, name=None):
    """Out = x * sigmoid(beta * x)."""
    return _append("swish", x, name, {"beta": beta})


def gelu(x, approximate=False, name=None):
    """Out = x * Phi(x) (the erf form), or its tanh approximation with ``approximate=True``."""
    return _append("gelu", x, name, {"approximate": approximate})


def softmax(input, use_cudnn=False, name=None, axis=-1):
    """Out = exp(input) / sum(exp(input)) along ``axis`` (default the last)."""
    helper = LayerHelper("softmax", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("softmax", {"X": [input]}, {"Out": [out]}, {"axis": axis, "use_cudnn": use_cudnn})
    return out


def log_softmax(input, axis=-1, name=None):
    """Out = input - log(sum(exp(input))) along ``axis`` (default the last)."""
    return _append("log_softmax", input, name, {"axis": axis})
