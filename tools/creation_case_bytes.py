"""The creation and filling ops' results for tools/op_case_bytes.py's ``creation`` and ``filling`` families: each op
and grad op called through its CPU kernel (``OpDef.kernel``) over dtypes, C-contiguous, Fortran-ordered and strided
inputs, 0-D and empty values, attributes (values out of a dtype's range, str_value, offsets, dims), and as an
executor step run on several values (its Meta kept; a shape given by ShapeTensor)."""

import zlib

import numpy as np

_DTYPES = ("float32", "float64", "float16", "int32", "int64", "bool", "uint8")


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    x = rng.uniform(-3, 3, size=shape)
    if dtype[0] == "f" and x.size > 2:
        x.reshape(-1)[1] = np.nan
    return (x * (5 if dtype[0] in "iu" else 1)).astype(dtype)


def _layouts(key, shape, dtype):
    x = _values(key, shape, dtype)
    forms = {"c": x}
    if len(shape) >= 2:
        wide = _values(key + "w", shape[:-1] + (shape[-1] * 2,), dtype)
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _forms():
    """(op, ins, attrs) of every form."""
    out = []
    for dt in _DTYPES:
        for shape in ((3, 4), (2, 3, 5), (), (0, 3)):
            for lay, x in _layouts(f"{dt}{shape}", shape, dt).items():
                out += [("fill_zeros_like", {"X": x}, {}), ("assign", {"X": x}, {})]
                out += [("fill_zeros_like2", {"X": x}, {"dtype": d}) for d in ("float32", "int64")]
                out += [
                    ("fill_any_like", {"X": x}, {"value": v, "dtype": d}) for v in (1.5, -2.0) for d in (None, "int32")
                ]
                out += [("fill_any", {"X": x}, {"value": v}) for v in (0.1, 3.0, -1.0)]
                out += [("fill_any_grad", {"Out@GRAD": x}, {})]
                out += [("fill_constant_batch_size_like", {"Input": x}, {"shape": [-1, 2], "value": 0.3, "dtype": dt})]
                if len(shape) >= 2:
                    for diagonal in (-1, 0, 2):
                        for lower in (True, False):
                            a = {"diagonal": diagonal, "lower": lower}
                            out += [("tril_triu", {"X": x}, a), ("tril_triu_grad", {"Out@GRAD": x}, a)]
                    for off, d1, d2 in ((0, -2, -1), (1, 0, 2), (-2, -1, 0), (3, 1, -1)):
                        out.append(("diag_embed", {"Input": x}, {"offset": off, "dim1": d1, "dim2": d2}))
        v = _values(f"v{dt}", (5,), dt)
        out += [("diag", {"Diagonal": v}, {}), ("diag", {"Diagonal": v[::2]}, {}), ("diag", {"Diagonal": v[:0]}, {})]
        xs = [_values(f"m{dt}{i}", s, dt) for i, s in enumerate([(3,), (), (4,)])]
        out.append(("meshgrid", {"X": xs}, {}))
        out.append(("meshgrid", {"X": xs[:1]}, {}))
        sizes = (3, 1, 4)
        ds = [_values(f"d{dt}{i}", sizes, dt) for i in range(3)]
        out.append(("meshgrid_grad", {"X": xs, "Out@GRAD": ds}, {}))
        out.append(("meshgrid_grad", {"X": xs, "Out@GRAD": [d.astype("float64") for d in ds]}, {}))
        for rows, cols in ((3, -1), (2, 5), (0, 0), (4, 1)):
            out.append(("eye", {}, {"num_rows": rows, "num_columns": cols, "dtype": dt}))
        out.append(
            (
                "fill_constant_batch_size_like",
                {"Input": v},
                {"shape": [2, -1], "value": 1.0, "dtype": dt, "output_dim_idx": 1, "str_value": "7.9e1"},
            )
        )
        out.append(("fill", {}, {"value": [1.5, -2.7, 3.2, 300.0, 0.0, -0.0], "shape": [2, 3], "dtype": dt}))
        out.append(("fill", {}, {"value": [1.5, 2.0], "shape": [1], "dtype": dt}))
    for dt, slot, values in (
        ("float32", "fp32_values", [0.1, -2.5, 3e38, 1e-45]),
        ("int32", "int32_values", [1, -2, 3, 4]),
        ("int64", "int64_values", [2**40, -5, 0, 7]),
        ("bool", "bool_values", [True, False, True, 0]),
        ("float64", "fp32_values", [0.1, 0.2, 0.3, 0.4]),
        ("float64", "fp64_values", [0.1, 0.2, 0.3, 0.4]),
    ):
        out.append(("assign_value", {}, {"shape": [2, 2], "dtype": dt, slot: values}))
        out.append(("assign_value", {}, {"shape": [4], "dtype": dt, slot: values * 100}))
        out.append(("assign_value", {}, {"shape": [3], "dtype": dt, slot: values}))
    out += [("fake_init", {}, {"shape": s}) for s in ([3, 4], [0], [])]
    out += _run_lengths()
    out += [("assign", {}, {})]
    for code in (5, 6, 2, 3, 0, 4):
        out.append(("empty", {}, {"shape": [2, 3], "dtype": code}))
        out.append(("empty", {"ShapeTensor": np.array([3, 1], np.int32)}, {"dtype": code}))
        out.append(("empty", {"ShapeTensorList": [np.array([2], np.int64), np.array([4], np.int64)]}, {"dtype": code}))
        out.append(("full_int_array", {}, {"value": [1, -2, 2**31 - 1, 0], "dtype": code}))
        out.append(("full_int_array", {}, {"value": [], "dtype": code}))
        for r, c, off in ((4, 4, 0), (3, 5, -1), (5, 2, 2), (0, 3, 0), (3, 3, -9), (3, 3, 9)):
            out.append(("tril_indices", {}, {"rows": r, "cols": c, "offset": off, "dtype": code}))
            out.append(("triu_indices", {}, {"row": r, "col": c, "offset": off, "dtype": code}))
    return out


def _run_lengths():
    """range, linspace and logspace over dtypes and values (lengths 0, 1 and more; steps that lead nowhere)."""
    out = []
    for dt in ("float32", "float64", "int32", "int64"):

        def a(v):
            return np.array([v], dt)

        for start, end, step in ((0, 10, 3), (5, -2, -1.5), (1, 1, 1), (0, 5, -1), (0.5, 3, 0.7), (2, 9, 0)):
            out.append(("range", {"Start": a(start), "End": a(end), "Step": a(step)}, {}))
        for start, stop, num in ((0, 1, 5), (-3.3, 7.1, 10), (2, 2, 1), (1, 4, 0), (0, 10, 7)):
            n = np.array([num], np.int32)
            out.append(("linspace", {"Start": a(start), "Stop": a(stop), "Num": n}, {}))
            out.append(("linspace", {"Start": a(start), "Stop": a(stop), "Num": n}, {"dtype": "float64"}))
            out.append(("linspace", {"Start": a(start), "Stop": a(stop), "Num": n}, {"dtype": dt}))
            for code in (5, 6, 2, 3):
                ins = {"Start": a(start), "Stop": a(stop), "Num": n, "Base": a(2.5)}
                out.append(("logspace", ins, {"dtype": code}))
    return out


def _steps(results, ops):
    """A few of the ops as executor steps run on values of two shapes and dtypes, the first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("fill_zeros_like", "X", {}),
        ("assign", "X", {}),
        ("fill_any_like", "X", {"value": 2.5}),
        ("tril_triu", "X", {"diagonal": 1, "lower": False}),
        ("fill_any", "X", {"value": 4.0}),
        ("diag_embed", "Input", {"offset": 1}),
        ("fill_constant_batch_size_like", "Input", {"shape": [-1, 3], "value": 1.25}),
    ]
    for i, (op, slot, attrs) in enumerate(f for f in forms if f[0] in ops):
        program = Program()
        block = program.global_block()
        for n in ("x", "y"):
            block.create_var(name=n)
        block.append_op(op, {slot: ["x"]}, {"Out": ["y"]}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        xs = [_values(f"step|{i}|{j}", s, "float32") for j, s in enumerate([(2, 4, 4)] * 2 + [(3, 6, 2)])]
        for j, x in enumerate(xs + [_values("s", (2, 4, 4), "float64")]):
            values, key = Values({"x": x}), f"creation|step|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            a = np.asarray(values["y"])
            results[f"{key}|Out|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


_FILLING = ("fill_any", "fill_any_grad", "empty", "full_int_array", "tril_indices", "triu_indices", "logspace")


def _items(outs):
    """The outputs, a list slot's values each on its own (their shapes differ: meshgrid_grad's)."""
    items = {}
    for slot, value in outs.items():
        if isinstance(value, list):
            items.update({f"{slot}.{i}": v for i, v in enumerate(value)})
        else:
            items[slot] = value
    return items


def _run(results, record, direct, ops, tag):
    from pe_cli.ops import registry

    for i, (op, ins, attrs) in enumerate(f for f in _forms() if f[0] in ops):
        opdef = registry.get(op)
        attrs = dict(opdef.default_attrs(), **attrs)
        key = f"{tag}|{i}|{op}|{sorted(attrs.items())}"
        record(results, key, lambda: _items(direct(opdef, dict(ins), attrs, None)))
    _steps(results, ops)


def creation(results, record, direct):
    from pe_cli.ops import registry

    ops = {t for t in registry.all_op_types() if registry.get(t).kernel_module == "creation"}
    _run(results, record, direct, ops, "creation")


def filling(results, record, direct):
    _run(results, record, direct, _FILLING, "filling")
