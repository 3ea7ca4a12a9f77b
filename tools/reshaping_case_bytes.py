"""The reshaping ops' results for tools/op_case_bytes.py's ``reshaping`` family: reshape, reshape2, squeeze(2),
unsqueeze(2), flatten(2), flatten_contiguous_range, transpose(2) and their grad ops called through their CPU
kernels (``OpDef.kernel``) and through an executor step run twice (its Meta kept), over dtypes, 0-D, empty,
strided and Fortran-ordered inputs, Shape / ShapeTensor / AxesTensor inputs, each attribute form and the
refusals; beside each output's bytes, its layout: C and F contiguity, whether it owns its memory and whether it
shares an input's (a view of X, or a copy)."""

import zlib

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def _forms(rng, shape, dtype):
    """X as a C-contiguous array, a strided view, a Fortran-ordered copy, 0-D and empty."""
    x = (rng.uniform(-3, 3, size=shape) * 5).astype(dtype)
    forms = {"c": x, "0d": x.reshape(-1)[:1].reshape(()).copy(), "empty": np.zeros((0,) + shape[1:], dtype)}
    if len(shape) >= 2:
        forms["fortran"] = np.asfortranarray(x)
        wide = (rng.uniform(-3, 3, size=shape[:-1] + (shape[-1] * 2,)) * 5).astype(dtype)
        forms["strided"] = wide[..., ::2]
    return forms


_RESHAPES = [[6, 4], [0, -1], [-1], [4, -1, 0], [-1, 3, 2], [], [5, 5], [-1, -1], [0, 0, 0, 0], [24, 0]]
_SQUEEZES = [[], [1], [-1], [1, 3], [0], [7]]
_UNSQUEEZES = [[0], [-1], [0, 2], [0, -1], [5], []]
_FLATTENS = [0, 1, 2, 3, 4]
_RANGES = [(1, 1), (0, -1), (1, 2), (-2, -1), (2, 1), (0, 0), (5, 6)]
_PERMS = [[1, 0, 2], [2, 0, 1], [0, 1, 2], [0, 2, 1], [-1, 0, 1], [0, 0, 1], [1, 0], [1, 0, 2, 3]]


def _layout(results, key, ins, outs):
    for name, value in sorted(outs.items()):
        a = np.asarray(value)
        shared = [s for s, v in sorted(ins.items()) if isinstance(v, np.ndarray) and np.shares_memory(a, v)]
        flags = f"C={a.flags.c_contiguous} F={a.flags.f_contiguous} own={a.base is None} views={shared}"
        results[f"{key}|{name}|layout"] = np.frombuffer(flags.encode(), dtype=np.uint8)


def _call(results, record, direct, opdef, key, ins, attrs):
    """The op's kernel on ``ins``: its outputs' bytes and layouts; the outputs (None where it refused)."""
    record(results, key, lambda: direct(opdef, dict(ins), attrs, None))
    try:
        outs = direct(opdef, dict(ins), attrs, None)
    except Exception:
        return None
    _layout(results, key, ins, outs)
    return outs


def _grad_of(results, record, direct, op, key, ins, outs, attrs, rng):
    """op's grad op on the forward's X (or XShape) and a dOut of Out's shape and dtype."""
    from pe_cli.ops import registry

    grad = registry.get(op + "_grad")
    out = np.asarray(outs["Out"])
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same dOut in both trees, whatever ran before)
    dout = (rng.uniform(-1, 1, size=out.shape) * 5).astype(out.dtype)
    given = {"X": ins["X"], "Out": out, "XShape": outs.get("XShape"), "Out@GRAD": dout}
    gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
    _call(results, record, direct, grad, key + "|grad", gins, attrs)
    if "XShape" in gins and "X" not in gins and op.endswith("2"):  # (a *2_grad without XShape: X's shape)
        return
    if op in ("reshape2", "squeeze2", "unsqueeze2", "flatten2"):
        gins = {"X": ins["X"], "Out@GRAD": dout}
        _call(results, record, direct, grad, key + "|grad_x", gins, attrs)


def _forward_and_grad(results, record, direct, op, key, ins, attrs, rng):
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    outs = _call(results, record, direct, opdef, key, ins, attrs)
    if outs is not None and op + "_grad" in registry.all_op_types():
        _grad_of(results, record, direct, op, key, ins, outs, attrs, rng)


def _direct_forms(results, record, direct, rng):
    for dtype in _DTYPES:
        for form, x in _forms(rng, (2, 3, 4), dtype).items():
            for op in ("reshape", "reshape2"):
                for shape in _RESHAPES:
                    key = f"reshaping|{op}|{dtype}|{form}|{shape}"
                    _forward_and_grad(results, record, direct, op, key, {"X": x}, {"shape": shape}, rng)
            for op in ("flatten", "flatten2"):
                for axis in _FLATTENS:
                    key = f"reshaping|{op}|{dtype}|{form}|{axis}"
                    _forward_and_grad(results, record, direct, op, key, {"X": x}, {"axis": axis}, rng)
            for start, stop in _RANGES:
                key = f"reshaping|flatten_contiguous_range|{dtype}|{form}|{start}|{stop}"
                attrs = {"start_axis": start, "stop_axis": stop}
                _forward_and_grad(results, record, direct, "flatten_contiguous_range", key, {"X": x}, attrs, rng)
            for op in ("unsqueeze", "unsqueeze2"):
                for axes in _UNSQUEEZES:
                    key = f"reshaping|{op}|{dtype}|{form}|{axes}"
                    _forward_and_grad(results, record, direct, op, key, {"X": x}, {"axes": axes}, rng)
            for op in ("transpose", "transpose2"):
                for perm in _PERMS + [[]]:
                    key = f"reshaping|{op}|{dtype}|{form}|{perm}"
                    _forward_and_grad(results, record, direct, op, key, {"X": x}, {"axis": perm}, rng)
        for form, x in _forms(rng, (2, 1, 3, 1), dtype).items():
            for op in ("squeeze", "squeeze2"):
                for axes in _SQUEEZES:
                    key = f"reshaping|{op}|{dtype}|{form}|{axes}"
                    _forward_and_grad(results, record, direct, op, key, {"X": x}, {"axes": axes}, rng)


def _tensor_forms(results, record, direct, rng):
    """Shapes and axes given by tensors: reshape's Shape (int32, int64) and ShapeTensor, unsqueeze's AxesTensor and
    AxesTensorList; two calls of one X with other values."""
    x = rng.uniform(-1, 1, (2, 3, 4)).astype("float32")
    for op in ("reshape", "reshape2"):
        for values in ([3, 8], [-1, 2], [0, 12], [4, 0, 3], [5, 5]):
            for dtype in ("int32", "int64"):
                key = f"reshaping|{op}|Shape|{dtype}|{values}"
                ins = {"X": x, "Shape": np.array(values, dtype)}
                _forward_and_grad(results, record, direct, op, key, ins, {"shape": [6, 4]}, rng)
            key = f"reshaping|{op}|ShapeTensor|{values}"
            ins = {"X": x, "ShapeTensor": [np.array([v], np.int32) for v in values]}
            _forward_and_grad(results, record, direct, op, key, ins, {"shape": [-1] * len(values)}, rng)
            both = dict(ins, Shape=np.array([24], np.int64))
            _forward_and_grad(results, record, direct, op, key + "|both", both, {"shape": []}, rng)
    for op in ("unsqueeze", "unsqueeze2"):
        for axes in ([0], [3, 1], [-1]):
            key = f"reshaping|{op}|AxesTensor|{axes}"
            ins = {"X": x, "AxesTensor": np.array(axes, np.int32)}
            _forward_and_grad(results, record, direct, op, key, ins, {"axes": [9]}, rng)
            ins = {"X": x, "AxesTensorList": [np.array([a], np.int64) for a in axes]}
            _forward_and_grad(results, record, direct, op, key + "|list", ins, {"axes": []}, rng)


def _large(results, record, direct, rng):
    """transpose's loop (two adjacent axes swapped, float, from 16384 values) and numpy's copy beside it."""
    for dtype in ("float32", "float64", "float16", "int64"):
        x = rng.uniform(-1, 1, (64, 28, 4, 16)).astype(dtype)
        for form, value in (("c", x), ("strided", x[:, :, :, ::-1]), ("fortran", np.asfortranarray(x))):
            for perm in ([0, 2, 1, 3], [0, 1, 3, 2], [1, 0, 2, 3], [0, 2, 3, 1], [3, 2, 1, 0]):
                key = f"reshaping|large|{dtype}|{form}|{perm}"
                _forward_and_grad(results, record, direct, "transpose2", key, {"X": value}, {"axis": perm}, rng)


def _steps(results, rng):
    """Each op run as an executor step twice on one X (its Meta kept), then on X of another shape, a strided X,
    and (reshape) other ShapeTensor values: the outputs' bytes, shapes and layouts."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("reshape2", {"shape": [0, -1]}, {}),
        ("reshape", {"shape": [-1]}, {}),
        ("squeeze2", {"axes": []}, {}),
        ("unsqueeze2", {"axes": [1]}, {}),
        ("flatten2", {"axis": 1}, {}),
        ("flatten_contiguous_range", {"start_axis": 0, "stop_axis": -1}, {}),
        ("transpose2", {"axis": [1, 0, 2]}, {}),
        ("transpose", {"axis": [0, 2, 1]}, {}),
        ("reshape2", {"shape": [-1, -1]}, {"ShapeTensor": [[3, 8], [8, 3], [2, 12]]}),
    ]
    xs = [rng.uniform(-1, 1, (2, 3, 4)).astype("float32")] * 2 + [rng.uniform(-1, 1, (4, 1, 6)).astype("float32")]
    xs.append(rng.uniform(-1, 1, (2, 3, 8)).astype("float32")[:, :, ::2])
    for i, (op, attrs, tensors) in enumerate(forms):
        program = Program()
        block = program.global_block()
        block.create_var(name="x", shape=[-1, 3, 4], dtype="float32")
        inputs = {"X": ["x"]}
        for slot, values in tensors.items():
            names = [f"t{j}" for j in range(len(values[0]))]
            for n in names:
                block.create_var(name=n, shape=[1], dtype="int32")
            inputs[slot] = names
        for n in ("out", "xshape"):
            block.create_var(name=n)
        outputs = {"Out": ["out"]} if not op.endswith("2") and op != "flatten_contiguous_range" else {}
        outputs = outputs or {"Out": ["out"], "XShape": ["xshape"]}
        block.append_op(op, inputs, outputs, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j, x in enumerate(xs if not tensors else xs[:1] * 3):
            values = Values({"x": x})
            for slot, given in tensors.items():
                for n, v in zip(inputs[slot], given[j]):
                    values[n] = np.array([v], np.int32)
            key = f"reshaping|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            outs = {n: values[n] for n in ("out", "xshape") if n in values}
            for n, a in outs.items():
                results[f"{key}|{n}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
            _layout(results, key, {"X": x}, outs)


def reshaping(results, record, direct, rng):
    """Every form above into ``results`` (op_case_bytes.py's ``_record`` and ``_direct``)."""
    _direct_forms(results, record, direct, rng)
    _tensor_forms(results, record, direct, rng)
    _large(results, record, direct, rng)
    _steps(results, rng)
