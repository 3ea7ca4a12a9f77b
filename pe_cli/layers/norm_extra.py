"""prelu, instance_norm and group_norm of Fluid 1.8's ``fluid.layers``, with its signatures and
parameters (names, shapes and initial values as Fluid's)."""
__all__ = ["prelu"]
from ..errors import PeError
from ..initializer import ConstantInitializer
from .helper import LayerHelper


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
