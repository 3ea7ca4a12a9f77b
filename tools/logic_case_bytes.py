"""tools/op_case_bytes.py's dump of the logic family (``logic``): the comparisons, logical and bitwise ops,
isfinite_v2 / isinf_v2 / isnan_v2, equal_all, equal_reduce and Fluid's isfinite / isinf / isnan through their
CPU kernels on X and Y of bool, uint8, int32, int64, float16, float32 and float64 values (NaN and infinities
among the floats), mixed dtypes, each broadcast form (one shape, Y of fewer dims with ``axis`` -1 and in the
middle, Y 0-D, X of fewer dims with and without ``axis``, shapes that do not broadcast), 0-D, empty and a
transposed (not C-contiguous) X, in Fluid's and Paddle 2.x's meanings. ``record(results, key, fn)`` and
``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_COMPARE = ("less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal")
_BINARY = ("logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "equal_all")
_UNARY = ("logical_not", "bitwise_not", "isfinite_v2", "isinf_v2", "isnan_v2", "isfinite", "isinf", "isnan")
_DTYPES = ("bool", "uint8", "int32", "int64", "float16", "float32", "float64")
_SHAPES = [  # (X, Y, axis)
    ((3, 4), (3, 4), -1),
    ((2, 3, 4), (4,), -1),
    ((2, 3, 4), (3,), 1),
    ((2, 3, 4), (2, 3), 0),
    ((2, 3, 4), (3, 4), 1),
    ((2, 3, 4), (), -1),
    ((2, 3, 4), (), 1),
    ((3,), (3, 4), 0),
    ((4,), (3, 4), -1),
    ((), (1,), -1),
    ((), (), -1),
    ((0, 3), (3,), -1),
    ((2, 3, 4), (5,), -1),
    ((2, 3, 4), (2, 1, 4), -1),
    ((1, 3, 1), (2, 1, 4), -1),
]


def _values(rng, shape, dtype):
    x = rng.uniform(-3, 3, size=shape)
    if dtype[0] == "f" and x.size > 3:
        x.reshape(-1)[:3] = (np.nan, np.inf, -np.inf)
    if dtype == "bool":
        return x > 0
    return (np.round(x) if dtype[0] in "iu" else x).astype(dtype)


def logic(results, record, direct, rng):
    """The dumps above."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    ctxs = {"fluid": KernelContext(), "paddle2": KernelContext(paddle2=True, zero_dim=True)}
    for dtype in _DTYPES:
        for xs, ys, axis in _SHAPES:
            x, y = _values(rng, xs, dtype), _values(rng, ys, dtype)
            for op in _COMPARE + _BINARY + ("equal_reduce",):
                opdef = registry.get(op)
                attrs = dict(opdef.default_attrs(), **({"axis": axis} if "axis" in opdef.attrs else {}))
                for told, ctx in ctxs.items():
                    key = f"logic|{op}|{dtype}|{xs}|{ys}|{axis}|{told}"
                    record(results, key, lambda: direct(opdef, {"X": x, "Y": y}, attrs, ctx))
            for op in _UNARY:
                opdef = registry.get(op)
                record(results, f"logic|{op}|{dtype}|{xs}", lambda: direct(opdef, {"X": x}, {}, None))
        for other in _DTYPES:  # (mixed dtypes: numpy's promotion; a bitwise op's dtype is numpy's)
            x, y = _values(rng, (3, 4), dtype), _values(rng, (4,), other)
            for op in _COMPARE + _BINARY:
                opdef = registry.get(op)
                key = f"logic|mixed|{op}|{dtype}|{other}"
                record(results, key, lambda: direct(opdef, {"X": x, "Y": y}, opdef.default_attrs(), None))
        x = _values(rng, (4, 3), dtype).T  # (not C-contiguous)
        y = _values(rng, (3,), dtype)
        for op in _COMPARE + _BINARY + _UNARY:
            opdef = registry.get(op)
            ins = {"X": x, "Y": y[:, None]} if op in _COMPARE + _BINARY else {"X": x}
            attrs = dict(opdef.default_attrs(), **({"axis": 0} if op in _COMPARE else {}))
            record(results, f"logic|strided|{op}|{dtype}", lambda: direct(opdef, ins, attrs, None))
