"""Weight normalization (Fluid's ``WeightNormParamAttr``, https://arxiv.org/abs/1602.07868): a layer's
weight becomes w = g * v / ||v||, the norm taken over every dim but ``dim`` (all dims for None), with
two parameters ``<name>_v`` (the weight's shape and initializer) and ``<name>_g`` (1 along every dim
but ``dim``, initialized in the startup program to ||v||, so w starts as the initializer drew it).
w itself is a variable the main program computes, as in Fluid."""

import copy

from ..framework import unique_name
from ..training.param_attr import ParamAttr, WeightNormParamAttr

__all__ = ["weight_normalized"]


def _other_dims(rank, dim):
    return [d for d in range(rank) if dim is None or d != dim % rank]


class _NormOf:
    """The startup initializer of g: ||v|| over every dim but ``dim``, kept as g's shape."""

    def __init__(self, v_name, rank, dim):
        self.v_name, self.rank, self.dim = v_name, rank, dim

    def __call__(self, var, block):
        square = block.create_var(name=unique_name.generate(var.name + ".square"), shape=None, dtype=var.dtype)
        total = block.create_var(name=unique_name.generate(var.name + ".sum"), shape=list(var.shape), dtype=var.dtype)
        block.append_op("square", {"X": [self.v_name]}, {"Out": [square.name]}, {})
        block.append_op(
            "reduce_sum",
            {"X": [square.name]},
            {"Out": [total.name]},
            {"dim": _other_dims(self.rank, self.dim), "keep_dim": True, "reduce_all": False},
        )
        return block.append_op("sqrt", {"X": [total.name]}, {"Out": [var.name]}, {})


def _plain(attr, name, initializer):
    plain = ParamAttr(
        name=name,
        initializer=initializer,
        learning_rate=attr.learning_rate,
        regularizer=attr.regularizer,
        trainable=attr.trainable,
        gradient_clip=attr.gradient_clip,
        do_model_average=attr.do_model_average,
    )
    plain.need_clip = getattr(attr, "need_clip", True)
    return plain


def weight_normalized(helper, attr, name, shape, dtype, initializer):
    """w = g * v / ||v|| for the WeightNormParamAttr ``attr`` of the weight ``name``."""
    assert isinstance(attr, WeightNormParamAttr)
    rank, dim = len(shape), attr.dim
    if dim is not None and not -rank <= dim < rank:
        raise ValueError(f"WeightNormParamAttr: dim={dim} is outside the weight's {rank} dims {list(shape)}")
    g_shape = [1] * rank
    if dim is not None:
        g_shape[dim % rank] = shape[dim % rank]
    v = helper.create_parameter(_plain(attr, name + "_v", initializer), shape, dtype)
    g = helper.create_parameter(_plain(copy.copy(attr), name + "_g", _NormOf(v.name, rank, dim)), g_shape, dtype)
    return _apply(helper, v, g, _other_dims(rank, dim), dtype)


def _apply(helper, v, g, dims, dtype):
    """w = v * (g / sqrt(sum(v^2 over dims))), in the main program."""

    def op(op_type, inputs, attrs=None):
        out = helper.create_variable_for_type_inference(dtype)
        helper.append_op(op_type, inputs, {"Out": [out]}, attrs or {})
        return out

    total = op("reduce_sum", {"X": [op("square", {"X": [v]})]}, {"dim": dims, "keep_dim": True, "reduce_all": False})
    scale = op("elementwise_div", {"X": [g], "Y": [op("sqrt", {"X": [total]})]}, {"axis": -1})
    return op("elementwise_mul", {"X": [v], "Y": [scale]}, {"axis": -1})
