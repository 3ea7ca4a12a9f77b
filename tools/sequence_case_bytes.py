"""The sequence ops' results for tools/op_case_bytes.py's ``sequence`` family: sequence_pool, sequence_softmax and
their grad ops called through their CPU kernels (``OpDef.kernel``) with a LoD in the call's context, over dtypes,
shapes (1-D, 2-D, 3-D X; C-contiguous and strided), LoDs (empty sequences, two levels, one that does not end at X's
rows, none), every pool type and pad_value, MAX's gradient with and without MaxIndex; and through an executor step
run on one shape with two LoDs, each twice (a Meta kept per LoD); beside each output's bytes its shape and dtype."""

import zlib

import numpy as np

from padding_case_bytes import _layout

_LODS = {
    "three": [[0, 3, 4, 8]],
    "empty": [[0, 2, 2, 8]],
    "one": [[0, 8]],
    "two_levels": [[0, 2, 3], [0, 3, 4, 4, 8]],
    "short": [[0, 3, 7]],
    "none": None,
}


def _values(key, shape, dtype):
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same values in both trees, whatever ran before)
    return (rng.uniform(-3, 3, size=shape) * (5 if dtype[0] == "i" else 1)).astype(dtype)


def _call(results, record, direct, op, key, ins, attrs, lod):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    lods = {slot: lod for slot in ("X", "Out")} if lod else {}
    record(results, key, lambda: direct(opdef, dict(ins), attrs, KernelContext(lod=lods)))
    try:
        outs = direct(opdef, dict(ins), attrs, KernelContext(lod=lods))
    except Exception:
        return None
    _layout(results, key, outs)
    return outs


def _direct_cases(results, record, direct):
    for dtype in ("float32", "float64"):
        for shape in ((8,), (8, 1), (8, 3), (8, 2, 3)):
            for form in ("c", "strided"):
                x = _values(f"seq|{dtype}|{shape}", shape, dtype)
                if form == "strided":
                    x = _values(f"seq|w|{dtype}|{shape}", (16,) + shape[1:], dtype)[::2]
                for name, lod in _LODS.items():
                    key = f"sequence|{dtype}|{shape}|{form}|{name}"
                    for kind in ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"):
                        attrs = {"pooltype": kind, "pad_value": 0.25}
                        outs = _call(results, record, direct, "sequence_pool", f"{key}|{kind}", {"X": x}, attrs, lod)
                        if outs is None:
                            continue
                        dout = _values(f"{key}|{kind}|d", outs["Out"].shape, dtype)
                        ins = {"X": x, "MaxIndex": outs["MaxIndex"], "Out@GRAD": dout}
                        _call(results, record, direct, "sequence_pool_grad", f"{key}|{kind}|g", ins, attrs, lod)
                        del ins["MaxIndex"]
                        _call(results, record, direct, "sequence_pool_grad", f"{key}|{kind}|g0", ins, attrs, lod)
                    outs = _call(results, record, direct, "sequence_softmax", f"{key}|sm", {"X": x}, {}, lod)
                    if outs is not None:
                        ins = {"X": x, "Out": outs["Out"], "Out@GRAD": _values(f"{key}|smd", x.shape, dtype)}
                        _call(results, record, direct, "sequence_softmax_grad", f"{key}|smg", ins, {}, lod)


def _steps(results):
    """Each op as an executor step run on rows of one shape with two LoDs, each twice, then no LoD."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("sequence_pool", {"pooltype": "MAX"}, {"Out": ["y"], "MaxIndex": ["i"]}),
        ("sequence_pool", {"pooltype": "SQRT"}, {"Out": ["y"], "MaxIndex": ["i"]}),
        ("sequence_softmax", {}, {"Out": ["y"]}),
    ]
    for n, (op, attrs, outputs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for name in ("x", *(v[0] for v in outputs.values())):
            block.create_var(name=name)
        block.append_op(op, {"X": ["x"]}, outputs, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        x = _values(f"step|{n}", (8, 1), "float32")
        for j, lod in enumerate([_LODS["three"], _LODS["empty"], _LODS["three"], _LODS["empty"], None]):
            values, key = Values({"x": x}, {"x": lod} if lod else None), f"sequence|step|{n}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for name in (v[0] for v in outputs.values()):
                a = values[name]
                results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
                lods = repr(values.lods.get(name))
                results[f"{key}|{name}|lod"] = np.frombuffer(lods.encode(), dtype=np.uint8)


def sequence(results, record, direct):
    _direct_cases(results, record, direct)
    _steps(results)


def _rows_direct(results, record, direct):
    """sequence_reverse, sequence_expand (X with and without a LoD, Y of one and two levels, ref_level), sequence_pad
    (padded_length, a scalar and a row PadValue) and their grad ops, over dtypes, shapes and LoDs."""
    for dtype in ("float32", "float64", "int64"):
        for shape in ((8,), (8, 3), (8, 2, 3)):
            x = _values(f"rows|{dtype}|{shape}", shape, dtype)
            for name, lod in _LODS.items():
                key = f"rows|{dtype}|{shape}|{name}"
                outs = _call(results, record, direct, "sequence_reverse", f"{key}|rev", {"X": x}, {}, lod)
                dy = _values(f"{key}|drev", shape, dtype)
                _call(results, record, direct, "sequence_reverse_grad", f"{key}|revg", {"X": x, "Y@GRAD": dy}, {}, lod)
                for n, pad in enumerate([np.array([0.5]), _values(f"{key}|pv", shape[1:] or (1,), dtype)]):
                    for length in (-1, 6, 2):
                        attrs, k = {"padded_length": length}, f"{key}|pad|{n}|{length}"
                        outs = _call(results, record, direct, "sequence_pad", k, {"X": x, "PadValue": pad}, attrs, lod)
                        if outs is not None:
                            d = {"X": x, "Out@GRAD": _values(k + "d", outs["Out"].shape, dtype)}
                            _call(results, record, direct, "sequence_pad_grad", k + "|g", d, attrs, lod)
    _expand_direct(results, record, direct)
    for dtype in ("float32", "float64"):  # (sequence_unpad_grad: Length's values, in range and not)
        for shape in ((3, 4), (3, 4, 2), (0, 4)):
            for n, length in enumerate([[2, 0, 4], [4, 4, 4], [1, 5, 0], [1]]):
                x, key = _values(f"unpad|{dtype}|{shape}", shape, dtype), f"unpad|{dtype}|{shape}|{n}"
                rows = sum(length) if sum(length) <= shape[1] * len(length) else 1
                ins = {"X": x, "Length": np.array(length, np.int64)}
                ins["Out@GRAD"] = _values(key + "d", (rows,) + (shape[2:] or (1,)), dtype)
                _call(results, record, direct, "sequence_unpad_grad", key, ins, {}, None)


def _expand_direct(results, record, direct):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    forms = [  # (X's rows, X's LoD, Y's LoD, ref_level)
        (3, None, [[0, 2, 2, 5]], -1),
        (3, [[0, 1, 3]], [[0, 2, 5]], -1),
        (5, [[0, 2, 3, 5]], [[0, 1, 3, 4]], 0),
        (5, [[0, 2, 3, 5]], [[0, 1, 3, 4], [0, 2, 3, 5, 6, 7]], 0),
        (5, [[0, 2, 3, 5]], [[0, 1, 3, 4], [0, 2, 3, 5, 6, 7]], -1),
        (3, [[0, 1, 3]], [[0, 2, 5, 6]], -1),
        (4, [[0, 2], [0, 1, 4]], [[0, 1, 3]], -1),
    ]
    for dtype in ("float32", "float64"):
        for i, (rows, x_lod, y_lod, level) in enumerate(forms):
            x = _values(f"exp|{dtype}|{i}", (rows, 2), dtype)
            y = _values(f"exp|y|{i}", (y_lod[-1][-1], 1), "float32")
            lods = {"Y": y_lod, **({"X": x_lod} if x_lod else {})}
            key, attrs = f"expand|{dtype}|{i}", {"ref_level": level}
            ctx = KernelContext(lod=lods)
            record(results, key, lambda: direct(registry.get("sequence_expand"), {"X": x, "Y": y}, attrs, ctx))
            results[key + "|lod"] = np.frombuffer(repr(ctx.out_lod).encode(), dtype=np.uint8)
            try:
                out = direct(registry.get("sequence_expand"), {"X": x, "Y": y}, attrs, KernelContext(lod=lods))["Out"]
            except Exception:
                continue
            ins = {"X": x, "Y": y, "Out@GRAD": _values(key + "d", out.shape, dtype)}
            grad = registry.get("sequence_expand_grad")
            record(results, key + "|g", lambda: direct(grad, ins, attrs, KernelContext(lod=lods)))


def _rows_steps(results):
    """sequence_reverse, sequence_pad and sequence_expand as steps on one shape with two LoDs, each twice."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("sequence_reverse", {"X": ["x"]}, {"Y": ["y"]}, {}),
        ("sequence_pad", {"X": ["x"], "PadValue": ["p"]}, {"Out": ["y"], "Length": ["n"]}, {}),
        ("sequence_expand", {"X": ["x"], "Y": ["r"]}, {"Out": ["y"]}, {}),
    ]
    r = _values("rows|r", (8, 1), "float32")
    for n, (op, inputs, outputs, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for name in ("x", "p", "r", *(v[0] for v in outputs.values())):
            block.create_var(name=name)
        block.append_op(op, inputs, outputs, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        x = (
            _values(f"rows|step|{n}", (8, 2), "float32")
            if op != "sequence_expand"
            else _values("rows|x3", (3, 2), "float32")
        )
        x_lods = [_LODS["three"], _LODS["empty"]] if op != "sequence_expand" else [None, [[0, 1, 2, 3]]]
        for j, i in enumerate([0, 1, 0, 1]):
            lods = {"x": x_lods[i]} if x_lods[i] else {}
            lods["r"] = [[0, 3, 4, 8]] if j % 2 == 0 else [[0, 2, 2, 8]]
            values = Values({"x": x, "p": np.array([0.5], np.float32), "r": r}, lods)
            key = f"rows|step|{n}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for name in (v[0] for v in outputs.values()):
                a = values[name]
                results[f"{key}|{name}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
                results[f"{key}|{name}|lod"] = np.frombuffer(repr(values.lods.get(name)).encode(), dtype=np.uint8)


def sequence_rows(results, record, direct):
    _rows_direct(results, record, direct)
    _rows_steps(results)


def sequence_shape(results, record, direct):
    """sequence_expand_as (Y of one and two levels, empty sequences) and sequence_reshape (new_dim, C-contiguous and
    strided X: a view or a copy) and their grad ops, with their outputs' LoD and layout; and as steps on two LoDs."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    for dtype in ("float32", "float64"):
        for n, y_lod in enumerate([[[0, 2, 2, 5]], [[0, 1, 3], [0, 2, 2, 5]], [[0, 3]], [[0, 1, 4]]]):
            x = _values(f"ea|{dtype}|{n}", (3, 2), dtype)
            y = _values("ea|y", (y_lod[-1][-1], 1), dtype)
            key, ctx = f"expand_as|{dtype}|{n}", KernelContext(lod={"Y": y_lod})
            record(results, key, lambda: direct(registry.get("sequence_expand_as"), {"X": x, "Y": y}, {}, ctx))
            d = _values(key + "d", (y_lod[-1][-1], 2), dtype)
            ins = {"X": x, "Y": y, "Out@GRAD": d}
            grad = registry.get("sequence_expand_as_grad")
            record(results, key + "|g", lambda: direct(grad, ins, {}, KernelContext(lod={"Y": y_lod})))
        for form in ("c", "strided"):
            for new_dim in (1, 2, 3, 4, 6):
                x = (
                    _values(f"rs|{dtype}", (6, 4), dtype)
                    if form == "c"
                    else _values(f"rs|{dtype}", (6, 8), dtype)[:, ::2]
                )
                for name in ("three", "two_levels", "none"):
                    lod = {"three": [[0, 3, 6]], "two_levels": [[0, 1, 2], [0, 3, 6]], "none": None}[name]
                    key = f"reshape|{dtype}|{form}|{new_dim}|{name}"
                    outs = _call(results, record, direct, "sequence_reshape", key, {"X": x}, {"new_dim": new_dim}, lod)
                    if outs is None:
                        continue
                    ctx = KernelContext(lod={"X": lod})
                    direct(registry.get("sequence_reshape"), {"X": x}, {"new_dim": new_dim}, ctx)
                    results[key + "|lod"] = np.frombuffer(repr(ctx.out_lod).encode(), dtype=np.uint8)
                    results[key + "|view"] = np.frombuffer(repr(np.shares_memory(outs["Out"], x)).encode(), np.uint8)
                    d = _values(key + "d", outs["Out"].shape, dtype)
                    attrs, ins = {"new_dim": new_dim}, {"X": x, "Out@GRAD": d}
                    _call(results, record, direct, "sequence_reshape_grad", key + "|g", ins, attrs, lod)
                    _call(results, record, direct, "sequence_reshape_grad", key + "|g1", dict(ins, X=x[1:]), attrs, lod)


def lod_resets(results, record, direct):
    """lod_reset / lod_append over Y's LoD, Y's values, target_lod, append and bad levels: Out, its LoD, X itself."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    x = _values("reset|x", (5, 2), "float32")
    forms = [  # (inputs, attrs, LoD)
        ({"Y": np.zeros((5, 1), np.float32)}, {}, {"Y": [[0, 1, 5]]}),
        ({"Y": np.zeros((5, 1), np.float32)}, {}, {"Y": [[0, 1, 4]]}),
        ({"Y": np.array([0, 2, 5], np.int32)}, {}, {}),
        ({"Y": np.array([0, 3, 2, 5], np.int64)}, {}, {}),
        ({}, {"target_lod": [0, 2, 5]}, {"X": [[0, 5]]}),
        ({}, {"target_lod": [0, 1, 3]}, {}),
        ({}, {"target_lod": [0, 1, 2, 5], "append": True}, {"X": [[0, 1, 3]]}),
        ({}, {"target_lod": [0, 1, 5], "append": True}, {"X": [[0, 1, 3]]}),
        ({}, {"target_lod": [0, 1, 5], "append": True}, {"X": [[0, 2]]}),
    ]
    opdef = registry.get("lod_reset")
    for n, (ins, attrs, lod) in enumerate(forms):
        key, ctx = f"lod_reset|{n}", KernelContext(lod=lod)
        attrs = dict(opdef.default_attrs(), **attrs)
        record(results, key, lambda: direct(opdef, {"X": x, **ins}, attrs, ctx))
        results[key + "|lod"] = np.frombuffer(repr(ctx.out_lod).encode(), dtype=np.uint8)
        try:
            same = direct(opdef, {"X": x, **ins}, attrs, KernelContext(lod=lod))["Out"] is x
        except Exception:
            continue
        results[key + "|is_x"] = np.frombuffer(repr(same).encode(), dtype=np.uint8)
