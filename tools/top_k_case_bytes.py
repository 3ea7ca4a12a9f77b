"""tools/op_case_bytes.py's dump of the top-k family (``top_k``): top_k, top_k_v2, their gradient ops, arg_max and
arg_min through their CPU kernels on values of float16/32/64, int32 and int64 (C- and Fortran-ordered), rows with
ties, NaN and infinities, each of top_k's variants (k = 1, a float row 4k wider than k: the numba loop, another
dtype's partition, a sort), k beyond the last dim (the refusal), K given by a tensor, top_k_v2's axes, largest
and 0-D X, arg_max's axes, keepdims, flatten, dtypes (-1, int32, float32) and 0-D and empty X.
``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int32", "int64")
_SHAPES = [(7,), (3, 5), (2, 3, 40), (4, 300), (0, 9), (5, 1)]


def _values(rng, shape, dtype, order, ties):
    x = rng.integers(-4, 4, size=shape) if ties else rng.uniform(-3, 3, size=shape) * 100
    x = x.astype(dtype)
    if dtype.startswith("float") and x.size > 4:
        x.reshape(-1)[[1, -2]] = np.nan, np.inf
    return np.asfortranarray(x) if order == "f" else x


def _with_grad(results, record, direct, key, op, ins, attrs, rng):
    from pe_cli.ops import registry

    record(results, key, lambda: direct(registry.get(op), ins, attrs, None))
    try:
        outs = direct(registry.get(op), ins, attrs, None)
    except Exception:
        return
    dout = rng.uniform(-1, 1, size=np.shape(outs["Out"])).astype(np.asarray(outs["Out"]).dtype)
    gins = {"X": ins["X"], "Indices": outs["Indices"], "Out@GRAD": dout}
    record(results, key + "|grad", lambda: direct(registry.get(op + "_grad"), gins, attrs, None))


def top_ks(results, record, direct, rng):
    """The dumps above."""
    from pe_cli.ops import registry

    for dtype in _DTYPES:
        for order in ("c", "f"):
            for shape in _SHAPES + [()]:
                for ties in (False, True):
                    x = _values(rng, shape, dtype, order, ties)
                    n = shape[-1] if shape else 1
                    for k in sorted({1, 2, 3, n // 5 or 1, n, n + 1}):
                        if shape:
                            key = f"top_k|top_k|{dtype}|{order}|{shape}|{ties}|{k}"
                            _with_grad(results, record, direct, key, "top_k", {"X": x}, {"k": k}, rng)
                            ins = {"X": x, "K": np.array([k], np.int32)}
                            _with_grad(results, record, direct, key + "|K", "top_k", ins, {}, rng)
                        for axis in range(-len(shape), max(len(shape), 1)):
                            for largest in (True, False):
                                attrs = dict(registry.get("top_k_v2").default_attrs(), k=k, axis=axis)
                                attrs["largest"] = largest
                                key = f"top_k|top_k_v2|{dtype}|{order}|{shape}|{ties}|{k}|{axis}|{largest}"
                                _with_grad(results, record, direct, key, "top_k_v2", {"X": x}, attrs, rng)
                    for op in ("arg_max", "arg_min"):
                        for axis in range(-len(shape), max(len(shape), 1)):
                            for keepdims in (False, True):
                                for flatten in (False, True):
                                    for out_dtype in (-1, 2, "int32", "float32", "int64"):
                                        attrs = {"axis": axis, "keepdims": keepdims, "flatten": flatten}
                                        attrs["dtype"] = out_dtype
                                        key = f"top_k|{op}|{dtype}|{order}|{shape}|{ties}|{attrs}"
                                        ins = {"X": x}
                                        record(results, key, lambda: direct(registry.get(op), ins, attrs, None))
