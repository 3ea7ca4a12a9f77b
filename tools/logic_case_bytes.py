"""tools/op_case_bytes.py's dump of the logic family (``logic``): the comparisons, logical and bitwise ops,
isfinite_v2 / isinf_v2 / isnan_v2, equal_all, equal_reduce, allclose, isclose and Fluid's isfinite / isinf / isnan
through their CPU kernels on X and Y of bool, uint8, int32, int64, float16, float32 and float64 values (NaN and infinities
among the floats), mixed dtypes, each broadcast form (one shape, Y of fewer dims with ``axis`` -1 and in the
middle, Y 0-D, X of fewer dims with and without ``axis``, shapes that do not broadcast), 0-D, empty and a
transposed (not C-contiguous) X, in Fluid's and Paddle 2.x's meanings; allclose and isclose as _closeness says. ``record(results, key, fn)`` and
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
        _closeness(results, record, direct, rng, dtype)
        x = _values(rng, (4, 3), dtype).T  # (not C-contiguous)
        y = _values(rng, (3,), dtype)
        for op in _COMPARE + _BINARY + _UNARY:
            opdef = registry.get(op)
            ins = {"X": x, "Y": y[:, None]} if op in _COMPARE + _BINARY else {"X": x}
            attrs = dict(opdef.default_attrs(), **({"axis": 0} if op in _COMPARE else {}))
            record(results, f"logic|strided|{op}|{dtype}", lambda: direct(opdef, ins, attrs, None))


def _closeness(results, record, direct, rng, dtype):
    """allclose and isclose of ``dtype`` values (and Input against float64 Other): near, far, NaN and infinities
    at the same and at other places, tolerances given and as tensors (isclose's Rtol, Atol), equal_nan, 0-D,
    empty, shapes that differ (the one-line refusal); allclose's [1] and 0-D (zero_dim) results."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    for shape, other in (((3, 4), (3, 4)), ((), ()), ((0, 2), (0, 2)), ((3, 4), (4,))):
        x = _values(rng, shape, dtype)
        near = (x + (1e-6 if dtype[0] == "f" else 0)).astype(dtype) if other == shape else _values(rng, other, dtype)
        for y in (near, x, _values(rng, other, dtype), near.astype("float64") if dtype[0] == "f" else near):
            for extra in ({}, {"rtol": 1e-9, "atol": 1e-9}, {"equal_nan": True}, {"rtol": 0.5, "atol": 0.1}):
                for op in ("allclose", "isclose"):
                    opdef = registry.get(op)
                    attrs = dict(opdef.default_attrs(), **extra)
                    if op == "isclose":
                        attrs.update({k: str(v) for k, v in extra.items() if k in ("rtol", "atol")})
                    for zero_dim in (False, True):
                        ctx = KernelContext(zero_dim=zero_dim, paddle2=zero_dim)
                        key = f"logic|{op}|{dtype}|{shape}|{other}|{y.dtype}|{extra}|{zero_dim}"
                        record(results, key, lambda: direct(opdef, {"Input": x, "Other": y}, attrs, ctx))
            opdef = registry.get("isclose")
            tensors = {"Rtol": np.array([0.5], "float64"), "Atol": np.array([0.1], "float64")}
            record(
                results,
                f"logic|isclose|tensors|{dtype}|{shape}|{other}|{y.dtype}",
                lambda: direct(opdef, {"Input": x, "Other": y, **tensors}, opdef.default_attrs(), None),
            )
