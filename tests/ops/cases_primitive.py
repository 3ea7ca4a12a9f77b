"""Op cases for family primitive: Paddle 2.6's ``*_p`` ops, each numpy's function of its inputs (references
by numpy and math.erf), in float32 and, for the arithmetic and comparisons, int64."""

import math

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(96)
X, Y = rng.uniform(-2, 2, (3, 4)).astype("float32"), rng.uniform(-2, 2, (3, 4)).astype("float32")
P, Q = rng.uniform(0.5, 2, (3, 4)).astype("float32"), rng.uniform(0.5, 2, (3, 4)).astype("float32")
I, J = rng.integers(-3, 4, (2, 5)).astype("int64"), rng.integers(-3, 4, (2, 5)).astype("int64")
_UNARY = {
    "sin_p": (np.sin, X),
    "cos_p": (np.cos, X),
    "tanh_p": (np.tanh, X),
    "exp_p": (np.exp, X),
    "log_p": (np.log, P),
    "erf_p": (np.vectorize(math.erf), X),
    "sqrt_p": (np.sqrt, P),
    "rsqrt_p": (lambda v: 1 / np.sqrt(v), P),
    "abs_p": (np.abs, X),
}
_BINARY = {
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


def _unary(op, fn, x):
    return OpCase(op, {"X": x}, lambda i, a: {"Y": fn(i["X"].astype("float64")).astype("float32")}, rtol=1e-6)


def _binary(op, fn, x, y, name=None):
    def ref(i, a):
        z = fn(i["X"].astype("float64") if x.dtype.kind == "f" else i["X"], i["Y"])
        return {"Z": z if z.dtype == bool else z.astype(x.dtype)}

    return OpCase(op, {"X": x, "Y": y}, ref, rtol=1e-6, name=name or op)


CASES = (
    [_unary(op, fn, x) for op, (fn, x) in _UNARY.items()]
    + [_binary(op, fn, P, Q) for op, fn in _BINARY.items()]
    + [_binary(op, _BINARY[op], I, J, f"{op}_int64") for op in ("add_p", "sub_p", "mul_p", "max_p", "eq_p", "gt_p")]
    + [_binary("eq_p", np.equal, X, X.copy(), "eq_p_equal")]
)
