"""The matrix family's results for tools/op_case_bytes.py's ``matrix`` family: addmm, dot, cross, kron, trace,
bilinear_tensor_product and their grad ops called through their CPU kernels (``OpDef.kernel``), in Fluid's and
Paddle 2.x's contexts, over dtypes (one, and mixed: the "fresh" variants), shapes (empty values, ranks, broadcast
Inputs), C-contiguous, Fortran-ordered and strided inputs and attributes; each grad op on a dOut of its forward's
output in that output's dtype and in float64."""

import zlib

import numpy as np


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    x = rng.uniform(-3, 3, size=shape) * (5 if dtype[0] in "iu" else 1)
    if dtype.startswith("complex"):
        x = x + 1j * rng.uniform(-3, 3, size=shape)
    return x.astype(dtype)


def _forms(key, shape, dtype):
    x = _values(key, shape, dtype)
    forms = {"c": x}
    if len(shape) >= 2:
        wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype)
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _called(opdef):
    """The op's CPU kernel as ``kernel(ins, attrs, ctx)`` (one that takes no context called without it)."""
    from pe_cli.kernels.context import takes_context

    kernel = opdef.kernel("cpu")
    return kernel if takes_context(kernel) else lambda ins, attrs, ctx: kernel(ins, attrs)


def _run(results, record, op, key, ins, attrs, paddle2):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef, grad = registry.get(op), registry.get(op + "_grad")
    attrs = dict(opdef.default_attrs(), **attrs)
    kernel, gkernel = _called(opdef), _called(grad)
    record(results, key, lambda: kernel(dict(ins), dict(attrs), KernelContext(paddle2=paddle2)))
    try:
        out = np.asarray(kernel(dict(ins), dict(attrs), KernelContext(paddle2=paddle2))["Out"])
    except Exception:
        return
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        given = dict(ins, **{"Out@GRAD": _values(f"{key}|{dtype}", out.shape, dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        ctx = KernelContext(paddle2=paddle2)
        record(results, f"{key}|grad|{dtype}", lambda: gkernel(gins, dict(attrs), ctx))


_DTYPES = (("float32",) * 3, ("float64",) * 3, ("float16",) * 3, ("int64",) * 3, ("float32", "float64", "float32"))
_DTYPES += (("complex128",) * 3, ("int32", "float32", "int32"))


def _pairs(results, record, paddle2, dt):
    a, b, _ = dt
    base = f"matrix|{paddle2}|{'-'.join(dt)}"
    for shape in ((5,), (0,), (3, 4), (2, 0), (1, 1)):
        for form, x in _forms(f"{base}|{shape}|x", shape, a).items():
            y = _values(f"{base}|{shape}|y", shape, b)
            _run(results, record, "dot", f"{base}|dot|{shape}|{form}", {"X": x, "Y": y}, {}, paddle2)
    for xs, ys in (((2, 3), (3, 2)), ((3,), (2, 2)), ((2, 1, 3), (4, 2)), ((0, 2), (2, 3)), ((), (3,))):
        for form, x in _forms(f"{base}|{xs}|kx", xs, a).items():
            y = _values(f"{base}|{ys}|ky", ys, b)
            _run(results, record, "kron", f"{base}|kron|{xs}|{ys}|{form}", {"X": x, "Y": y}, {}, paddle2)
    for shape, dims in (((3,), (9, 0, -1)), ((2, 3), (9, 1, -1)), ((3, 3, 4), (9, 0, 1, 2)), ((0, 3), (9, 1))):
        for form, x in _forms(f"{base}|{shape}|cx", shape, a).items():
            y = _values(f"{base}|{shape}|cy", shape, b)
            for dim in dims:
                key = f"{base}|cross|{shape}|{form}|{dim}"
                _run(results, record, "cross", key, {"X": x, "Y": y}, {"dim": dim}, paddle2)


def _others(results, record, paddle2, dt):
    a, b, c = dt
    base = f"matrix|{paddle2}|{'-'.join(dt)}"
    for shape in ((3, 4), (2, 3, 4), (4, 0), (2, 3, 3, 2)):
        for form, x in _forms(f"{base}|{shape}|t", shape, a).items():
            for off, d1, d2 in ((0, -2, -1), (1, 0, 1), (-1, 1, 0), (2, 0, -1), (5, 0, 1)):
                attrs = {"offset": off, "dim1": d1, "dim2": d2}
                _run(
                    results, record, "trace", f"{base}|trace|{shape}|{form}|{off}{d1}{d2}", {"Input": x}, attrs, paddle2
                )
    for inp in ((3, 4), (1, 4), (3, 1), (4,), (1, 1)):
        for form, x in _forms(f"{base}|addmm|x", (3, 2), a).items():
            ins = {"Input": _values(f"{base}|{inp}|i", inp, c), "X": x, "Y": _values(f"{base}|am|y", (2, 4), b)}
            for alpha, beta in ((1.0, 1.0), (0.5, -2.0)):
                key = f"{base}|addmm|{inp}|{form}|{alpha}{beta}"
                _run(results, record, "addmm", key, ins, {"Alpha": alpha, "Beta": beta}, paddle2)
    for bias in (None, (1, 3), (3,)):
        for form, x in _forms(f"{base}|bl|x", (4, 2), a).items():
            ins = {"X": x, "Y": _values(f"{base}|bl|y", (4, 5), b), "Weight": _values(f"{base}|bl|w", (3, 2, 5), c)}
            if bias is not None:
                ins["Bias"] = _values(f"{base}|bl|b", bias, c)
            _run(results, record, "bilinear_tensor_product", f"{base}|bilinear|{bias}|{form}", ins, {}, paddle2)


def matrix(results, record, direct):
    for paddle2 in (False, True):
        for dt in _DTYPES:
            _pairs(results, record, paddle2, dt)
            _others(results, record, paddle2, dt)
