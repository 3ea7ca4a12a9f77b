"""tools/op_case_bytes.py's dump of the pointwise_math family (``pointwise_math``): its unary ops (silu, celu, tan,
acosh, asinh, atanh, log2, log10, trunc, conj, logit) and binary and ternary ops (atan2, elementwise_fmax, _fmin,
_heaviside, lerp) and their grad ops, through their CPU kernels and an executor step's kernel run twice (its Meta
kept), on float16, float32 and float64 values holding the edges (+-0, +-1, NaN, +-inf, values in (0, 1)), ints
(atan2's float32 angles; the others' refusal), complex (conj), 0-D, empty and large arrays, each broadcast form,
shapes that do not broadcast, mixed dtypes, a transposed (not C-contiguous) X and the attributes' values (celu's
alpha, logit's eps). ``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_UNARY = ("silu", "celu", "tan", "acosh", "asinh", "atanh", "log2", "log10", "trunc", "conj", "logit")
_BINARY = {
    "atan2": ("X1", "X2"),
    "elementwise_fmax": ("X", "Y"),
    "elementwise_fmin": ("X", "Y"),
    "elementwise_heaviside": ("X", "Y"),
    "lerp": ("X", "Y", "Weight"),
}
_ATTRS = {
    "celu": [{"alpha": 1.0}, {"alpha": -0.5}, {"alpha": 0.7}],
    "logit": [{"eps": 1e-6}, {"eps": 0.0}, {"eps": 0.2}],
}
_EDGES = [0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 0.5, 1e-7, 1 - 1e-7, 2.5, -3.5]
_SHAPES = [  # the binary ops' (and lerp's Weight: the last)
    ((3, 4), (3, 4), (3, 4)),
    ((2, 3, 4), (4,), ()),
    ((2, 1, 4), (3, 1), (1, 4)),
    ((), (3,), ()),
    ((), (), ()),
    ((0, 3), (3,), (1,)),
    ((3,), (0, 3), ()),
    ((2, 3), (4,), ()),
    ((512, 260), (260,), (512, 1)),
]


def _values(rng, shape, dtype, edges=True):
    x = rng.uniform(-3, 3, size=shape)
    if dtype[0] == "c":
        return (x + 1j * rng.uniform(-3, 3, size=shape)).astype(dtype)
    if edges and x.size:
        n = min(x.size, len(_EDGES))
        x.reshape(-1)[:n] = _EDGES[:n]
    return (np.round(x) if dtype[0] in "iu" else x).astype(dtype)


def _runs(results, record, direct, key, opdef, ins, attrs):
    """The op's kernel on ``ins``, and its executor step's kernel twice (the second with its Meta kept)."""
    from pe_cli.kernels.context import KernelContext, takes_context

    record(results, key, lambda: direct(opdef, dict(ins), attrs, None))
    step = opdef.step_kernel("cpu")
    ctx = (KernelContext(),) if takes_context(step) else ()
    for run in (1, 2):
        record(results, f"{key}|step{run}", lambda: step(dict(ins), dict(attrs), *ctx))


def _unary(results, record, direct, rng):
    from pe_cli.ops import registry

    for op in _UNARY:
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        dtypes = ("float16", "float32", "float64", "int32") + (("complex128", "int64") if op == "conj" else ())
        for given in _ATTRS.get(op, [{}]):
            attrs = dict(fwd.default_attrs(), **given)
            for dtype in dtypes:
                for shape in [(), (0,), (3, 5), (4, 3), (1 << 17) + 3]:
                    x = _values(rng, shape, dtype)
                    if shape == (4, 3):
                        x = x.T  # (not C-contiguous)
                    key = f"pointwise|{op}|{given}|{dtype}|{shape}"
                    _runs(results, record, direct, key, fwd, {"X": x}, attrs)
                    d = _values(rng, x.shape, dtype, edges=False)
                    _runs(results, record, direct, key + "|grad", grad, {"X": x, "Out@GRAD": d}, attrs)
                x, d = _values(rng, (3, 5), dtype), _values(rng, (5,), "float64", edges=False)
                _runs(
                    results,
                    record,
                    direct,
                    f"pointwise|{op}|{given}|{dtype}|mixed",
                    grad,
                    {"X": x, "Out@GRAD": d},
                    attrs,
                )


def _binary(results, record, direct, rng):
    from pe_cli.ops import registry

    pairs = [(d, d) for d in ("float16", "float32", "float64", "int32", "int64")]
    pairs += [("float32", "float64"), ("float32", "int64"), ("int32", "float32"), ("bool", "bool")]
    for op, slots in _BINARY.items():
        fwd, grad = registry.get(op), registry.get(op + "_grad")
        attrs = fwd.default_attrs()
        for first, second in pairs:
            for shapes in _SHAPES:
                ins = {s: _values(rng, sh, first if i == 0 else second) for i, (s, sh) in enumerate(zip(slots, shapes))}
                key = f"pointwise|{op}|{first}|{second}|{shapes}"
                _runs(results, record, direct, key, fwd, ins, attrs)
                try:
                    out = np.asarray(direct(fwd, dict(ins), attrs, None)["Out"])
                except Exception:
                    continue
                gins = dict(ins, **{"Out@GRAD": _values(rng, out.shape, out.dtype.name, edges=False)})
                _runs(results, record, direct, key + "|grad", grad, gins, attrs)
        ins = {s: _values(rng, (4, 3), "float32").T for s in slots}  # (not C-contiguous)
        _runs(results, record, direct, f"pointwise|{op}|strided", fwd, ins, attrs)


def pointwise(results, record, direct, rng):
    """The dumps above."""
    _unary(results, record, direct, rng)
    _binary(results, record, direct, rng)
