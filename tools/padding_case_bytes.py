"""The padding ops' results for tools/op_case_bytes.py's ``padding`` family: pad, pad2d, pad3d, pad_constant_like,
crop, crop_tensor and their grad ops called through their CPU kernels (``OpDef.kernel``) and through an executor
step run on several values (its Meta kept), over dtypes, C-contiguous, Fortran-ordered and strided inputs, each
mode and layout (NCHW / NHWC, NCDHW / NDHWC), negative paddings (pad2d's crop), paddings, offsets and shapes given
by tensors, and the refusals; beside each output's bytes, its shape, dtype and C contiguity."""

import zlib

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return (rng.uniform(-3, 3, size=shape) * 5).astype(dtype)


def _forms(key, shape, dtype):
    x = _values(key, shape, dtype)
    wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype)
    return {"c": x, "fortran": np.asfortranarray(x), "strided": wide[..., ::2]}


def _layout(results, key, outs):
    for name, value in sorted(outs.items()):
        a = np.asarray(value)
        results[f"{key}|{name}|layout"] = np.frombuffer(f"C={a.flags.c_contiguous}".encode(), dtype=np.uint8)


def _run(results, record, direct, op, key, ins, attrs):
    """The op's kernel (and its grad op's, on a dOut of Out's shape in its dtype and in float64) on ``ins``."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: direct(opdef, dict(ins), attrs, None))
    try:
        outs = direct(opdef, dict(ins), attrs, None)
    except Exception:
        return
    _layout(results, key, outs)
    if op + "_grad" not in registry.all_op_types():
        return
    grad = registry.get(op + "_grad")
    out = np.asarray(outs["Out"])
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        dout = _values(f"{key}|{dtype}", out.shape, dtype)
        given = dict(ins, **{"Out@GRAD": dout})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        record(results, f"{key}|grad|{dtype}", lambda: direct(grad, gins, attrs, None))
        try:
            _layout(results, f"{key}|grad|{dtype}", direct(grad, gins, attrs, None))
        except Exception:
            pass


_PAD2D = [  # paddings, mode, data_format, pad_value
    ([1, 2, 0, 3], "constant", "NCHW", 1.5),
    ([0, 0, 0, 0], "constant", "NCHW", 0.0),
    ([3, 1, 2, 3], "reflect", "NCHW", 0.0),
    ([2, 0, 1, 4], "edge", "NCHW", 0.0),
    ([2, 1, 1, 1], "reflect", "NHWC", 0.0),
    ([0, 1, 2, 0], "constant", "NHWC", -1.0),
    ([-1, 2, 0, -2], "constant", "NCHW", 0.5),
    ([1, -1, -1, 2], "edge", "NHWC", 0.0),
    ([-1, -1, 1, 0], "reflect", "NCHW", 0.0),
    ([4, 0, 0, 0], "reflect", "NCHW", 0.0),
    ([-4, -1, 0, 0], "constant", "NCHW", 0.0),
    ([1, 1], "constant", "NCHW", 0.0),
    ([0, 0, 0, 0], "edge", "NHWC", 0.0),
    ([2, 2, 2, 2], "constant", "NCHW", float("nan")),
]
_PAD3D = [  # paddings, mode, data_format, value
    ([1, 0, 2, 1, 0, 2], "constant", "NCDHW", 0.5),
    ([2, 1, 3, 0, 1, 2], "reflect", "NCDHW", 0.0),
    ([0, 3, 1, 1, 2, 0], "replicate", "NDHWC", 0.0),
    ([1, 2, 2, 1, 1, 1], "circular", "NCDHW", 0.0),
    ([1, 2, 2, 1, 1, 1], "circular", "NDHWC", 0.0),
    ([1, 1, 0, 2, 1, 0], "constant", "NDHWC", -2.0),
    ([0, 0, 0, 0, 0, 0], "replicate", "NCDHW", 0.0),
    ([5, 0, 0, 0, 0, 0], "reflect", "NCDHW", 0.0),
    ([1, 1, 1], "constant", "NCDHW", 0.0),
]


def _pads(results, record, direct):
    for dtype in _DTYPES:
        for form, x in _forms(f"pad|{dtype}", (2, 3, 4), dtype).items():
            for p in ([0, 1, 2, 3, 1, 0], [0, 0, 0, 0, 0, 0], [2, 2, 0, 0, 1, 3]):
                for value in (0.0, 0.5, -2.0):
                    key = f"padding|pad|{dtype}|{form}|{p}|{value}"
                    _run(results, record, direct, "pad", key, {"X": x}, {"paddings": p, "pad_value": value})
            for p in ([1, 0, 2, 0, 0, 1], [0, 0, 0, 0, 0, 0]):  # pad_grad as a forward op (pad's double grad)
                dout = _values(
                    f"pad_grad|{dtype}|{p}", [n + p[2 * i] + p[2 * i + 1] for i, n in enumerate(x.shape)], dtype
                )
                key = f"padding|pad_grad|{dtype}|{form}|{p}"
                _run(results, record, direct, "pad_grad", key, {"X": x, "Out@GRAD": dout}, {"paddings": p})
        x = _values(f"pad|{dtype}|refused", (2, 3), dtype)
        _run(results, record, direct, "pad", f"padding|pad|{dtype}|short", {"X": x}, {"paddings": [1, 1]})
        _run(results, record, direct, "pad", f"padding|pad|{dtype}|negative", {"X": x}, {"paddings": [1, 1, -1, 0]})
    for dtype in _DTYPES:
        for form, x in _forms(f"pad2d|{dtype}", (2, 3, 4, 5), dtype).items():
            for i, (p, mode, fmt, value) in enumerate(_PAD2D):
                attrs = {"paddings": p, "mode": mode, "data_format": fmt, "pad_value": value}
                _run(results, record, direct, "pad2d", f"padding|pad2d|{dtype}|{form}|{i}", {"X": x}, attrs)
        for form, x in _forms(f"pad3d|{dtype}", (2, 2, 3, 4, 5), dtype).items():
            for i, (p, mode, fmt, value) in enumerate(_PAD3D):
                attrs = {"paddings": p, "mode": mode, "data_format": fmt, "value": value}
                _run(results, record, direct, "pad3d", f"padding|pad3d|{dtype}|{form}|{i}", {"X": x}, attrs)
    x4, x5 = _values("pad2d|tensor", (2, 3, 4, 5), "float32"), _values("pad3d|tensor", (1, 2, 3, 4, 3), "float32")
    for i, values in enumerate(([1, 0, 2, 1], [-1, 2, 0, 3], [9, 9, 9, 9], [1, 2, 3])):
        for mode in ("constant", "reflect", "edge"):
            attrs = {"paddings": [0, 0, 0, 0], "mode": mode, "pad_value": 0.5}
            ins = {"X": x4, "Paddings": np.array(values, np.int32)}
            _run(results, record, direct, "pad2d", f"padding|pad2d|Paddings|{i}|{mode}", ins, attrs)
    for i, values in enumerate(([1, 1, 0, 2, 1, 0], [0, 2, 1, 1, 2, 0], [3, 0, 0, 0, 0, 0], [1, 1])):
        for mode in ("constant", "reflect", "replicate", "circular"):
            for dtype in ("int32", "int64"):
                attrs = {"mode": mode, "value": -2.0}
                ins = {"X": x5, "Paddings": np.array(values, dtype)}
                _run(results, record, direct, "pad3d", f"padding|pad3d|Paddings|{i}|{mode}|{dtype}", ins, attrs)


def _likes_and_crops(results, record, direct):
    for dtype in _DTYPES:
        for form, x in _forms(f"crop|{dtype}", (4, 5, 3), dtype).items():
            for yshape in ((2, 5, 1), (4, 5, 3), (1, 1, 1), (0, 5, 3)):
                y = _values(f"like|{dtype}|{yshape}", yshape, dtype)
                for value in (0.0, 2.5):
                    key = f"padding|pad_constant_like|{dtype}|{form}|{yshape}|{value}"
                    ins = {"X": x, "Y": y if form == "c" else np.asfortranarray(y)}
                    _run(results, record, direct, "pad_constant_like", key, ins, {"pad_value": value})
            for shape, offsets in (
                ([2, 3, 2], [1, 2, 0]),
                ([4, 5, 3], []),
                ([-1, 5, 3], [0, 0, 0]),
                ([-1, -1, 2], [1, 1, 1]),
                ([5, 5, 3], [0, 0, 0]),
                ([2, 3], [0, 0]),
                ([1, 1, 1], [-1, 0, 0]),
            ):
                for op in ("crop", "crop_tensor"):
                    key = f"padding|{op}|{dtype}|{form}|{shape}|{offsets}"
                    _run(results, record, direct, op, key, {"X": x}, {"shape": shape, "offsets": offsets})
            key = f"padding|crop_tensor|{dtype}|{form}|nonpositive"
            _run(results, record, direct, "crop_tensor", key, {"X": x}, {"shape": [0, -2, 0], "offsets": [1, 0, 2]})
            for yshape, offsets in (((3, 2, 3), [0, 3, 0]), ((4, 5, 3), [0, 0, 0]), ((2, 2, 2), [])):
                key = f"padding|crop|{dtype}|{form}|Y{yshape}|{offsets}"
                ins = {"X": x, "Y": np.zeros(yshape, dtype)}
                _run(results, record, direct, "crop", key, ins, {"offsets": offsets})
    x = _values("crop|tensors", (3, 4, 5), "float32")
    i32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    for i, (ins, attrs) in enumerate(
        [
            ({"Shape": i32(1, 2, 2), "Offsets": i32(1, 0, 2)}, {"shape": [], "offsets": []}),
            ({"ShapeTensor": [i32(2), i32(1), i32(3)], "OffsetsTensor": [i32(0), i32(2), i32(1)]}, {"shape": [-1] * 3}),
            ({"Shape": i32(3, 4, 5)}, {"offsets": [0, 0, 0]}),
            ({"Offsets": i32(1, 1, 0)}, {"shape": [2, -1, 0]}),
            ({"Shape": i32(3, 9, 5)}, {"offsets": [0, 0, 0]}),
        ]
    ):
        _run(results, record, direct, "crop_tensor", f"padding|crop_tensor|tensors|{i}", {"X": x, **ins}, attrs)
    for i, offsets in enumerate(([1, 1, 0], [0, 0, 0], [2, 3, 3])):
        ins, attrs = {"X": x, "Offsets": i32(*offsets)}, {"shape": [1, 1, 2], "offsets": [0, 0, 0]}
        _run(results, record, direct, "crop", f"padding|crop|Offsets|{i}", ins, attrs)
        ins = {"X": x, "Y": np.zeros((1, 2, 2)), "Offsets": i32(*offsets)}
        _run(results, record, direct, "crop", f"padding|crop|Y|Offsets|{i}", ins, {"offsets": []})


def _steps(results):
    """Each op as an executor step run on values of a few shapes and dtypes, the first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("pad", {"paddings": [1, 0, 0, 2, 1, 1], "pad_value": 0.5}, 3),
        ("pad2d", {"paddings": [1, 0, 2, 1], "mode": "reflect"}, 4),
        ("pad2d", {"paddings": [1, -1, 0, 2], "pad_value": 2.0, "data_format": "NHWC"}, 4),
        ("pad3d", {"paddings": [1, 0, 2, 1, 0, 1], "mode": "circular"}, 5),
        ("pad3d", {"paddings": [1, 1, 0, 0, 1, 1], "mode": "constant", "data_format": "NDHWC"}, 5),
        ("crop", {"shape": [1, 2, 3], "offsets": [0, 1, 0]}, 3),
        ("crop_tensor", {"shape": [-1, 2, 3], "offsets": [1, 0, 0]}, 3),
    ]
    for i, (op, attrs, rank) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in ("x", "out"):
            block.create_var(name=n)
        block.append_op(op, {"X": ["x"]}, {"Out": ["out"]}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        shapes = [(2, 3, 4, 5, 4)[:rank]] * 2 + [(3, 4, 5, 4, 5)[:rank]]
        xs = [_values(f"step|{i}|{j}", s, "float32") for j, s in enumerate(shapes)] + [_values("s", shapes[0], "int64")]
        for j, x in enumerate(xs):
            values, key = Values({"x": x}), f"padding|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            a = values["out"]
            results[f"{key}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
            _layout(results, key, {"out": a})


def padding(results, record, direct):
    """Every form above into ``results`` (op_case_bytes.py's ``_record`` and ``_direct``)."""
    _pads(results, record, direct)
    _likes_and_crops(results, record, direct)
    _steps(results)
