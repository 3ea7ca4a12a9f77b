"""Activation layers: one builder per activation op, all made the same way."""
__all__ = ["relu"]
from .helper import LayerHelper


def _unary_layer(op_type, **defaults):
    def layer(x, name=None, **attrs):
        helper = LayerHelper(op_type, x=x, name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, {**defaults, **attrs})
        return out
    layer.__name__ = op_type
    layer.__doc__ = f"Appends a '{op_type}' op: Out = {op_type}(x)."
    return layer


relu = _unary_layer("relu")
