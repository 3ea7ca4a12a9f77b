"""The cumulative and channel-rearranging ops' results for tools/op_case_bytes.py's ``cumulative`` and
``channel_rearranging`` families: cumprod, cummax, cummin, logcumsumexp, pixel_unshuffle, channel_shuffle and their
grad ops called through their CPU kernels (``OpDef.kernel``) and through an executor step run on several values
(its Meta kept), over dtypes, C-contiguous, Fortran-ordered and strided inputs, 0-D and empty values, each axis
(negative, out of range), zeros, ties and NaNs, logcumsumexp's flatten / exclusive / reverse, the index dtypes,
both layouts and factors (and for ``diagonals``: diag_v2, diagonal, fill_diagonal and their grad ops over dtypes,
layouts, offsets, axes, wrap and values); beside each output's bytes, its shape, dtype and C contiguity."""

import zlib

import numpy as np

from padding_case_bytes import _layout


def _values(key, shape, dtype, special=False):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    x = rng.uniform(-3, 3, size=shape)
    if special and x.size:
        flat = x.reshape(-1)
        flat[:: max(flat.size // 4, 1)] = 0
        flat[1::5] = flat[0]
        if dtype[0] == "f":
            flat[2::7] = np.nan
    return (x * (5 if dtype[0] == "i" else 1)).astype(dtype)


def _forms(key, shape, dtype, special=False):
    x = _values(key, shape, dtype, special)
    forms = {"c": x}
    if len(shape) >= 2:
        wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype, special)
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _run(results, record, direct, op, key, ins, attrs):
    """The op's kernel and its grad op's (on a dOut of each output's shape in the output's dtype and float64)."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: direct(opdef, dict(ins), attrs, None))
    try:
        outs = direct(opdef, dict(ins), attrs, None)
    except Exception:
        return
    _layout(results, key, outs)
    grad = registry.get(op + "_grad")
    first = "out" if "out" in outs else "Out"
    out = np.asarray(outs[first])
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        given = dict(ins, **outs, **{f"{first}@GRAD": _values(f"{key}|{dtype}", out.shape, dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        record(results, f"{key}|grad|{dtype}", lambda: direct(grad, gins, attrs, None))
        try:
            _layout(results, f"{key}|grad|{dtype}", direct(grad, gins, attrs, None))
        except Exception:
            pass


def _scans(results, record, direct):
    shapes = [(), (0,), (7,), (3, 5), (2, 3, 4), (0, 4)]
    for dtype in ("float16", "float32", "float64", "int32", "int64"):
        for shape in shapes:
            for special in (False, True):
                for form, x in _forms(f"cum|{dtype}|{shape}|{special}", shape, dtype, special).items():
                    base = f"cumulative|{dtype}|{shape}|{special}|{form}"
                    for axis in (-1, 0, 1, 2, 3, -4):
                        _run(results, record, direct, "cumprod", f"{base}|cumprod|{axis}", {"X": x}, {"dim": axis})
                        for op in ("cummax", "cummin"):
                            for index in (2, 3):
                                key = f"{base}|{op}|{axis}|{index}"
                                _run(results, record, direct, op, key, {"x": x}, {"axis": axis, "dtype": index})
                        if dtype[0] != "f":
                            continue
                        for flatten, exclusive, reverse in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)):
                            attrs = dict(axis=axis, flatten=bool(flatten), exclusive=bool(exclusive))
                            attrs["reverse"] = bool(reverse)
                            key = f"{base}|logcumsumexp|{axis}|{flatten}{exclusive}{reverse}"
                            _run(results, record, direct, "logcumsumexp", key, {"X": x}, attrs)


def _channels(results, record, direct):
    for dtype in ("float16", "float32", "float64", "int32", "int64", "bool"):
        for fmt in ("NCHW", "NHWC"):
            for shape in ((2, 8, 4, 6), (1, 4, 2, 2), (0, 4, 2, 2), (2, 12, 6, 6)):
                nhwc = (shape[0], shape[2], shape[3], shape[1])
                for form, x in _forms(f"chan|{dtype}|{shape}", nhwc if fmt == "NHWC" else shape, dtype).items():
                    base = f"channel_rearranging|{dtype}|{fmt}|{shape}|{form}"
                    for r in (1, 2, 3):
                        attrs = {"downscale_factor": r, "data_format": fmt}
                        _run(results, record, direct, "pixel_unshuffle", f"{base}|unshuffle|{r}", {"X": x}, attrs)
                    for g in (1, 2, 4, 3):
                        attrs = {"groups": g, "data_format": fmt}
                        _run(results, record, direct, "channel_shuffle", f"{base}|shuffle|{g}", {"X": x}, attrs)


def _steps(results):
    """Each op as an executor step run on values of two shapes and dtypes, the first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("cumprod", "X", ["Out"], {"dim": 1}),
        ("cummax", "x", ["out", "indices"], {"axis": -1}),
        ("logcumsumexp", "X", ["Out"], {"axis": 0, "reverse": True}),
        ("pixel_unshuffle", "X", ["Out"], {"downscale_factor": 2}),
        ("channel_shuffle", "X", ["Out"], {"groups": 2, "data_format": "NHWC"}),
    ]
    for i, (op, slot, outs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in ["x"] + [o.lower() for o in outs]:
            block.create_var(name=n)
        block.append_op(op, {slot: ["x"]}, {o: [o.lower()] for o in outs}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        xs = [_values(f"step|{i}|{j}", s, "float32") for j, s in enumerate([(2, 4, 4, 4)] * 2 + [(3, 4, 6, 2)])]
        for j, x in enumerate(xs + [_values("s", (2, 4, 4, 4), "float64")]):
            values, key = Values({"x": x}), f"cumulative|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for o in outs:
                a = values[o.lower()]
                results[f"{key}|{o}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
                _layout(results, f"{key}|{o}", {"out": a})


def _diagonals(results, record, direct):
    for dtype in ("float16", "float32", "float64", "int32", "int64", "bool"):
        for shape in ((5,), (0,), (1,), (3, 4), (4, 3), (0, 3), (3, 3), (2, 3, 4), (3, 3, 3)):
            for form, x in _forms(f"diag|{dtype}|{shape}", shape, dtype).items():
                base = f"diagonals|{dtype}|{shape}|{form}"
                for k in (0, 1, -2, 5, -7):
                    for pad in (0.0, 2.5, -1.0):
                        attrs = {"offset": k, "padding_value": pad}
                        _run(results, record, direct, "diag_v2", f"{base}|diag_v2|{k}|{pad}", {"X": x}, attrs)
                    for a1, a2 in ((0, 1), (1, 0), (-1, 0), (2, 1), (0, 0)):
                        attrs = {"offset": k, "axis1": a1, "axis2": a2}
                        _run(results, record, direct, "diagonal", f"{base}|diagonal|{k}|{a1}{a2}", {"Input": x}, attrs)
                    for wrap in (False, True):
                        for value in (0.0, -3.5, float("nan")):
                            attrs = {"offset": k, "wrap": wrap, "value": value}
                            key = f"{base}|fill_diagonal|{k}|{wrap}|{value}"
                            _run(results, record, direct, "fill_diagonal", key, {"X": x}, attrs)


def diagonals(results, record, direct):
    _diagonals(results, record, direct)


def cumulative(results, record, direct):
    _scans(results, record, direct)
    _steps(results)


def channel_rearranging(results, record, direct):
    _channels(results, record, direct)
