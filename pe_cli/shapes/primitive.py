"""The meta rules of Paddle 2.6's primitive ops (ops/primitive.py), structured kernels (shapes/structured.py): from
X's (and Y's) shape and dtype, the output's shape and dtype and the variant that computes it (the CPU out-kernels:
kernels/cpu/primitive.py), decided once per shape signature.

- unary (sin_p, ..., abs_p): Y of X's shape and dtype; "ufunc" (a numpy ufunc that keeps X's dtype, into Y),
  "array" (erf_p's and rsqrt_p's numpy forms, or a ufunc's result of another dtype: cast to X's, fresh);
- arithmetic (add_p, ..., pow_p): Z of numpy's broadcast of X and Y, X's dtype; "ufunc" where the ufunc gives X's
  dtype, else "array" (its result cast to X's dtype, fresh);
- comparisons (eq_p, ne_p, gt_p, ge_p): Z bool, "ufunc".

Shapes that do not broadcast (the shape rule refused them when the op was appended): "array", the ufunc without
``out=``, which refuses them in numpy's words, as the kernels always did."""

import numpy as np

from ..base.broadcast_shapes import broadcast
from .activation import _ufunc_keeps
from .pointwise_math import _ufunc_dtype
from .structured import Meta

UFUNCS = {  # op -> its numpy ufunc (erf_p and rsqrt_p: numpy forms of several, kernels/cpu/primitive.py)
    "sin_p": np.sin,
    "cos_p": np.cos,
    "tanh_p": np.tanh,
    "exp_p": np.exp,
    "log_p": np.log,
    "sqrt_p": np.sqrt,
    "abs_p": np.abs,
    "add_p": np.add,
    "sub_p": np.subtract,
    "mul_p": np.multiply,
    "div_p": np.divide,
    "max_p": np.maximum,
    "pow_p": np.power,
    "eq_p": np.equal,
    "ne_p": np.not_equal,
    "gt_p": np.greater,
    "ge_p": np.greater_equal,
}
UNARY = ("sin_p", "cos_p", "tanh_p", "exp_p", "log_p", "erf_p", "sqrt_p", "rsqrt_p", "abs_p")
BINARY = ("add_p", "sub_p", "mul_p", "div_p", "max_p", "pow_p", "eq_p", "ne_p", "gt_p", "ge_p")
COMPARISONS = ("eq_p", "ne_p", "gt_p", "ge_p")
_BOOL = np.dtype(np.bool_)


def unary_meta(op):
    ufunc = UFUNCS.get(op)

    def meta(attrs, ins, facts):
        x = ins["X"]
        keeps = ufunc is not None and _ufunc_keeps(ufunc, x.dtype)
        return (
            Meta({"Y": (x.shape, x.dtype)}, "ufunc") if keeps else Meta({"Y": (x.shape, x.dtype)}, "array", fresh=True)
        )

    meta.__name__ = meta.__qualname__ = f"{op}_meta"
    return meta


def binary_meta(op):
    ufunc = UFUNCS[op]

    def meta(attrs, ins, facts):
        x, y = ins["X"], ins["Y"]
        shape = broadcast([tuple(x.shape), tuple(y.shape)])
        dtype = _BOOL if op in COMPARISONS else x.dtype
        if shape is not None and _ufunc_dtype(ufunc, x.dtype, y.dtype) == dtype:
            return Meta({"Z": (tuple(shape), dtype)}, "ufunc")
        return Meta({"Z": (tuple(shape or x.shape), dtype)}, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{op}_meta"
    return meta


META = {**{op: unary_meta(op) for op in UNARY}, **{op: binary_meta(op) for op in BINARY}}
