"""tools/op_case_bytes.py's dump of the special family (``special``): digamma, lgamma, erfinv, i0, i0e, i1, i1e,
polygamma (n 1, 2, 3), expm1, nextafter and their grad ops through their CPU kernels and an executor step's kernel
run twice (its Meta kept), on float16, float32 and float64 values holding the edges (0, -0, the negative integers,
+-1, NaN, +-inf, large), ints, bool, complex (expm1), 0-D, empty and transposed (not C-contiguous) values, gradients
of another dtype than their input, and nextafter of shapes that differ (the one-line refusal) and of y of another
dtype. ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

from pointwise_case_bytes import _runs

_UNARY = {  # op -> (input slot, output slot)
    "digamma": ("X", "Out"),
    "lgamma": ("X", "Out"),
    "erfinv": ("X", "Out"),
    "i0": ("x", "out"),
    "i0e": ("x", "out"),
    "i1": ("x", "out"),
    "i1e": ("x", "out"),
    "polygamma": ("x", "out"),
    "expm1": ("X", "Out"),
}
_EDGES = [0.0, -0.0, -1.0, -2.0, 1.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 1e-7, 40.0, 800.0, -3.5]


def _values(rng, shape, dtype, edges=True):
    x = rng.uniform(-3, 3, size=shape)
    if dtype[0] == "c":
        return (x + 1j * x).astype(dtype)
    if edges and x.size:
        n = min(x.size, len(_EDGES))
        x.reshape(-1)[:n] = _EDGES[:n]
    return (np.round(x) if dtype[0] in "iub" else x).astype(dtype)


def special(results, record, direct, rng):
    """The dumps above."""
    from pe_cli.ops import registry

    for op, (x_slot, out_slot) in _UNARY.items():
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        reads = [s.name for s in grad.inputs if not s.name.endswith("@GRAD")]
        dtypes = ("float16", "float32", "float64", "int32", "int64") + (("bool", "complex128") if op == "expm1" else ())
        for n in (1, 2, 3) if op == "polygamma" else (None,):
            attrs = dict(fwd.default_attrs(), **({"n": n} if n else {}))
            for dtype in dtypes:
                for shape in [(), (0,), (3, 5), (5, 3), (2, 7)]:
                    x = _values(rng, shape, dtype)
                    x = x.T if shape == (5, 3) else x  # (not C-contiguous)
                    key = f"special|{op}|{n}|{dtype}|{shape}"
                    _runs(results, record, direct, key, fwd, {x_slot: x}, attrs)
                    try:
                        out = np.asarray(direct(fwd, {x_slot: x}, attrs, None)[out_slot])
                    except Exception:
                        continue
                    for d in dict.fromkeys([out.dtype.name, "float64"]):
                        gins = {x_slot: x, out_slot: out, f"{out_slot}@GRAD": _values(rng, out.shape, d, False)}
                        gins = {s: gins[s] for s in reads + [f"{out_slot}@GRAD"]}
                        _runs(results, record, direct, f"{key}|grad|{d}", grad, gins, attrs)
    fwd = registry.get("nextafter")
    for dtype, other in [("float32", "float32"), ("float64", "float64"), ("float32", "float64"), ("float64", "int32")]:
        for xs, ys in [((), ()), ((3, 5), (3, 5)), ((0, 2), (0, 2)), ((3, 5), (5,)), ((2, 3), (3, 2))]:
            x, y = _values(rng, xs, dtype), _values(rng, ys, other)
            if xs == ys and x.size and other[0] == "f":
                y.reshape(-1)[: min(y.size, 4)] = [np.inf, -np.inf, 0.0, -0.0][: min(y.size, 4)]
            _runs(results, record, direct, f"special|nextafter|{dtype}|{other}|{xs}|{ys}", fwd, {"x": x, "y": y}, {})
