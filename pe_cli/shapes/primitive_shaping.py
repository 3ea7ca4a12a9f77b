"""The meta rules of Paddle 2.6's structural primitive ops (ops/primitive_shaping.py), ``fresh`` variants
("numpy": the arrays the numpy forms in kernels/<device>/primitive_shaping.py made, handed over), each output's
shape Paddle's primitive InferShape gives (paddle/fluid/operators/prim_ops/), from the inputs' shapes and the
attributes alone."""

import math

import numpy as np

from ..base.dtypes import convert_dtype
from .structured import Meta


OPS = (
    "broadcast_p",
    "cast_p",
    "concat_p",
    "fill_constant_p",
    "gather_p",
    "matmul_p",
    "reduce_sum_p",
    "reshape_p",
    "scatter_add_p",
    "select_p",
    "slice_assign_p",
    "slice_select_p",
    "split_p",
    "transpose_p",
)


def _meta(outputs):
    return Meta(outputs, "numpy", fresh=True)


def _like(x, shape=None, dtype=None):
    return (tuple(x.shape) if shape is None else tuple(int(d) for d in shape), np.dtype(dtype or x.dtype))


def sliced_shape(shape, attrs):
    """slice_select_p's Y: each sliced dim (end - start + stride - 1) // stride."""
    shape = list(shape)
    for a, s, e, t in zip(attrs["axis"], attrs["starts"], attrs["ends"], attrs["strides"]):
        shape[a] = (e - s + t - 1) // t
    return tuple(shape)


def split_shapes(shape, attrs):
    """split_p's YS: num_or_sections [n] n equal parts along axis, else one part per section."""
    axis, parts = attrs["axis"], list(attrs["num_or_sections"])
    sizes = [shape[axis] // parts[0]] * parts[0] if len(parts) == 1 else parts
    return [tuple(shape[:axis]) + (n,) + tuple(shape[axis + 1 :]) for n in sizes]


def reduced_shape(shape, attrs):
    axes = set(attrs["axis"])
    if attrs["keepdim"]:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def primitive_shaping_meta(op):
    """The meta rule of the primitive op ``op``."""

    def meta(attrs, ins, facts):
        if op in ("broadcast_p", "reshape_p"):
            return _meta({"Y": _like(ins["X"], attrs["shape"])})
        if op == "cast_p":
            return _meta({"Y": _like(ins["X"], dtype=convert_dtype(attrs["dtype"]))})
        if op == "fill_constant_p":
            return _meta({"Y": (tuple(int(d) for d in attrs["shape"]), np.dtype(convert_dtype(attrs["dtype"])))})
        if op == "transpose_p":
            x = ins["X"]
            return _meta({"Y": _like(x, [x.shape[a] for a in attrs["axis"]])})
        if op == "concat_p":
            xs, axis = ins["XS"], attrs["axis"]
            shape = list(xs[0].shape)
            shape[axis] = sum(x.shape[axis] for x in xs)
            return _meta({"Y": _like(xs[0], shape)})
        if op == "split_p":
            x = ins["X"]
            return _meta({"YS": [_like(x, s) for s in split_shapes(tuple(x.shape), attrs)]})
        if op == "reduce_sum_p":
            return _meta({"Y": _like(ins["X"], reduced_shape(tuple(ins["X"].shape), attrs))})
        if op == "matmul_p":
            x, y = ins["X"], ins["Y"]
            return _meta({"Z": _like(x, tuple(x.shape)[:-1] + (y.shape[-1],))})
        if op == "slice_select_p":
            return _meta({"Y": _like(ins["X"], sliced_shape(tuple(ins["X"].shape), attrs))})
        if op == "gather_p":
            x, index = ins["X"], ins.get("IndexTensor")
            shape = list(x.shape)
            shape[attrs["axis"]] = math.prod(index.shape) if index is not None else len(attrs["index"])
            return _meta({"Y": _like(x, shape)})
        if op in ("scatter_add_p", "slice_assign_p"):
            return _meta({"Z": _like(ins["X"])})
        return _meta({"Z": _like(ins["X"])})  # select_p: X's (Condition's, Y's) shape

    meta.__name__ = meta.__qualname__ = f"{op}_meta"
    return meta
