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
