"""The quantization ops' results for tools/op_case_bytes.py's ``quantization`` and ``quantization_linear`` families:
each op of ops/quantization.py and ops/quantization_linear.py called through its CPU kernel (``OpDef.kernel``)
over dtypes (float32/64; int8 / uint8 where an op takes ints), shapes (empty values, ranks), C-contiguous,
Fortran-ordered and strided inputs, training and test forms and their attributes, and scales that do not meet X
(the refusals); then a few of them as executor steps run on two signatures, the first twice (its Meta kept)."""

import numpy as np

from matrix_case_bytes import _forms, _values

_SHAPES = ((3, 5), (2, 3, 4), (0, 4), (4,), (1, 1))


def _one(value, dtype="float32"):
    return np.array([value], dtype=dtype)


def _fake(results, record, direct, opdef, base, x, dtype):
    """The fake quantization ops on X (of ``dtype``)."""
    from pe_cli.ops import registry

    def run(op, key, ins, **attrs):
        o = registry.get(op)
        record(results, f"{base}|{op}|{key}", lambda: direct(o, ins, dict(o.default_attrs(), **attrs), None))

    scale = _one(1.25, dtype)
    for bits in (8, 4, 16, 1):
        run("fake_quantize_abs_max", f"{bits}", {"X": x}, bit_length=bits)
        run("fake_channel_wise_quantize_abs_max", f"{bits}", {"X": x}, bit_length=bits)
        for is_test in (True, False):
            for rate in (0.9, 0.0, 1.0):
                ins = {"X": x, "InScale": scale, "InAccum": _one(3.0, dtype), "InState": _one(2.0, dtype)}
                attrs = dict(bit_length=bits, is_test=is_test, moving_rate=rate)
                run("fake_quantize_moving_average_abs_max", f"{bits}|{is_test}|{rate}", ins, **attrs)
                run("fake_quantize_dequantize_moving_average_abs_max", f"{bits}|{is_test}|{rate}", ins, **attrs)
                ms = {k: v for k, v in ins.items() if k != "InScale"}
                run("moving_average_abs_max_scale", f"{is_test}|{rate}", ms, is_test=is_test, moving_rate=rate)
        for step in (0, 3, 7):
            for ring in (None, np.array([1.0, 3.0, 2.0, 4.0], dtype)):
                ins = {"X": x, "InScale": scale, "Iter": np.array([step], "int64")}
                if ring is not None:
                    ins["InScales"] = ring
                for is_test in (False, True):
                    attrs = dict(window_size=4, bit_length=bits, is_test=is_test)
                    run("fake_quantize_range_abs_max", f"{bits}|{step}|{ring is None}|{is_test}", ins, **attrs)
    for sdt in dict.fromkeys([dtype, "float64"]):
        for max_range in (127.0, 7.5):
            run("fake_dequantize_max_abs", f"{sdt}|{max_range}", {"X": x, "Scale": _one(2.5, sdt)}, max_range=max_range)
        if x.ndim and x.shape[0]:
            one = _values(f"{base}|s1", (x.shape[0],), sdt)
            run("fake_channel_wise_dequantize_max_abs", f"{sdt}|one", {"X": x, "Scales": [one]}, quant_bits=[8])
            run("fake_channel_wise_dequantize_max_abs", f"{sdt}|one4", {"X": x, "Scales": [one]}, quant_bits=[4, 8])
        if x.ndim >= 2:
            first, second = _values(f"{base}|s2", (x.shape[1],), sdt), _one(0.5, sdt)
            run(
                "fake_channel_wise_dequantize_max_abs",
                f"{sdt}|two",
                {"X": x, "Scales": [first, second]},
                quant_bits=[8, 4],
            )
        bad = _values(f"{base}|bad", (7,), sdt)
        run("fake_channel_wise_dequantize_max_abs", f"{sdt}|bad1", {"X": x, "Scales": [bad]}, quant_bits=[8])
        run("fake_channel_wise_dequantize_max_abs", f"{sdt}|bad2", {"X": x, "Scales": [bad, bad]}, quant_bits=[8, 8])
    run("fake_quantize_grad", "", {"Out@GRAD": x})


def _ints(results, record, direct, base, shape):
    """The int8 inference ops and oneDNN's quantize / dequantize / requantize."""
    from pe_cli.ops import registry

    def run(op, key, ins, **attrs):
        o = registry.get(op)
        record(results, f"{base}|{op}|{key}", lambda: direct(o, ins, dict(o.default_attrs(), **attrs), None))

    table = _values(f"{base}|dict", (128,), "float32")
    for dtype in ("int8", "uint8"):
        for form, x in _forms(f"{base}|{dtype}", shape, dtype).items():
            for sdt in ("float32", "float64"):
                run("dequantize_abs_max", f"{dtype}|{form}|{sdt}", {"X": x, "Scale": _one(0.75, sdt)}, max_range=63.0)
            run("dequantize_log", f"{dtype}|{form}", {"X": x, "Dict": table})
            for scale in (1.0, 0.37, 3.0):
                run("dequantize", f"{dtype}|{form}|{scale}", {"Input": x}, Scale=scale)
                run("requantize", f"{dtype}|{form}|{scale}", {"Input": x}, Scale_in=0.5, Scale_out=scale)
    for dtype in ("float32", "float64"):
        for form, x in _forms(f"{base}|q{dtype}", shape, dtype).items():
            for neg in (True, False):
                for scale in (1.0, 40.5, 0.5):
                    run("quantize", f"{dtype}|{form}|{neg}|{scale}", {"Input": x}, is_negative_input=neg, Scale=scale)


def _linear(results, record, direct, base, x, dtype):
    from pe_cli.ops import registry

    for op in ("quantize_linear", "dequantize_linear"):
        o = registry.get(op)
        xs = x if op == "quantize_linear" else np.round(x * 20).astype(dtype)
        for axis in (-1, 0, 1):
            n = 1 if axis < 0 or axis >= x.ndim else x.shape[axis]
            for sdt in dict.fromkeys([dtype, "float64", "float32"]):
                for bits in (8, 4):
                    for rt in (0, 1):
                        s = np.abs(_values(f"{base}|{op}|{axis}", (n,), sdt)) + np.asarray(0.1, sdt)
                        ins = {"X": xs, "Scale": s, "ZeroPoint": np.zeros(n, "int32")}
                        attrs = dict(o.default_attrs(), quant_axis=axis, bit_length=bits, round_type=rt)
                        key = f"{base}|{op}|{axis}|{sdt}|{bits}|{rt}"
                        record(results, key, lambda: direct(o, ins, attrs, None))
        zero = {"X": xs, "Scale": np.zeros(1, dtype), "ZeroPoint": np.zeros(1, "int32")}
        record(results, f"{base}|{op}|zero", lambda: direct(o, zero, dict(o.default_attrs(), quant_axis=-1), None))


def _steps(results):
    """fake_quantize_abs_max, quantize_linear and moving_average_abs_max_scale as executor steps run on values of
    two shapes and dtypes, the first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("fake_quantize_abs_max", {"X": "x"}, ["Out", "OutScale"], {"bit_length": 8}),
        ("quantize_linear", {"X": "x", "Scale": "s", "ZeroPoint": "z"}, ["Y"], {"quant_axis": -1}),
        ("moving_average_abs_max_scale", {"X": "x", "InAccum": "s", "InState": "s"}, ["Out", "OutScale"], {}),
        ("fake_quantize_grad", {"Out@GRAD": "x"}, ["X@GRAD"], {}),
    ]
    for i, (op, ins, outs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in ["x", "s", "z"] + [o.lower() for o in outs]:
            block.create_var(name=n)
        block.append_op(op, {k: [v] for k, v in ins.items()}, {o: [o.lower()] for o in outs}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        xs = [_values(f"qstep|{i}|{j}", s, "float32") for j, s in enumerate([(2, 4, 3)] * 2 + [(5, 2)])]
        for j, x in enumerate(xs + [_values("qs", (2, 4, 3), "float64")]):
            feed = {"x": x, "s": np.array([0.5], x.dtype), "z": np.zeros(1, "int32")}
            values, key = Values(feed), f"quantization|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for o in outs:
                a = np.asarray(values[o.lower()])
                results[f"{key}|{o}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


def quantization(results, record, direct):
    for dtype in ("float32", "float64"):
        for shape in _SHAPES:
            for form, x in _forms(f"quant|{dtype}|{shape}", shape, dtype).items():
                _fake(results, record, direct, None, f"quant|{dtype}|{shape}|{form}", x, dtype)
    for shape in _SHAPES:
        _ints(results, record, direct, f"quant|ints|{shape}", shape)
    _steps(results)


def quantization_linear(results, record, direct):
    for dtype in ("float32", "float64"):
        for shape in _SHAPES:
            for form, x in _forms(f"qlin|{dtype}|{shape}", shape, dtype).items():
                _linear(results, record, direct, f"qlin|{dtype}|{shape}|{form}", x, dtype)
