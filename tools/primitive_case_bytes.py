"""tools/op_case_bytes.py's dump of the primitive family (``primitive``): Paddle 2.6's ``*_p`` ops through their CPU
kernels and an executor step's kernel run twice (its Meta kept), on float16, float32, float64, int32, int64 and bool
values holding the edges (+-0, +-1, NaN, +-inf), 0-D, empty and transposed (not C-contiguous) values, X and Y of
mixed dtypes, shapes that broadcast and shapes that do not. ``record(results, key, fn)`` and
``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

from pointwise_case_bytes import _runs

_UNARY = ("sin_p", "cos_p", "tanh_p", "exp_p", "log_p", "erf_p", "sqrt_p", "rsqrt_p", "abs_p")
_BINARY = ("add_p", "sub_p", "mul_p", "div_p", "max_p", "pow_p", "eq_p", "ne_p", "gt_p", "ge_p")
_EDGES = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 0.5, 2.5, -3.5]
_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def _values(rng, shape, dtype):
    x = rng.uniform(-3, 3, size=shape)
    if dtype[0] == "f" and x.size:
        n = min(x.size, len(_EDGES))
        x.reshape(-1)[:n] = _EDGES[:n]
    return (np.round(x) if dtype[0] in "iub" else x).astype(dtype)


def primitive(results, record, direct, rng):
    """The dumps above."""
    from pe_cli.ops import registry

    for op in _UNARY:
        opdef = registry.get(op)
        for dtype in _DTYPES:
            for shape in [(), (0,), (3, 5), (5, 3)]:
                x = _values(rng, shape, dtype)
                x = x.T if shape == (5, 3) else x
                _runs(results, record, direct, f"primitive|{op}|{dtype}|{shape}", opdef, {"X": x}, {})
    pairs = [(d, d) for d in _DTYPES] + [("float32", "float64"), ("int32", "float32"), ("int64", "int32")]
    for op in _BINARY:
        opdef = registry.get(op)
        for first, second in pairs:
            for xs, ys in [((), ()), ((3, 5), (3, 5)), ((0, 2), (0, 2)), ((3, 5), (5,)), ((2, 3), (3, 2))]:
                ins = {"X": _values(rng, xs, first), "Y": _values(rng, ys, second)}
                _runs(results, record, direct, f"primitive|{op}|{first}|{second}|{xs}|{ys}", opdef, ins, {})
        ins = {"X": _values(rng, (4, 3), "float32").T, "Y": _values(rng, (4, 3), "float32").T}
        _runs(results, record, direct, f"primitive|{op}|strided", opdef, ins, {})
