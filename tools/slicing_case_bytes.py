"""The slicing and tiling ops' results for tools/op_case_bytes.py's ``slicing`` family: slice, strided_slice,
expand, tile, expand_as, expand_v2, expand_as_v2 and their grad ops (broadcast_tensors and its grad op beside
them) called through their CPU kernels (``OpDef.kernel``) and through executor steps run on several values (their
Metas kept), over dtypes, 0-D, empty, strided and Fortran-ordered inputs, each attribute form (negative and
clamped bounds, decrease_axis with Fluid's [1] and Paddle 2.x's 0-D, Fluid's ``var[i]`` ends, negative strides),
bounds, times and shapes given by tensors, and the refusals; beside each output's bytes, its shape, dtype and C
contiguity."""

import zlib

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")

_SLICES = [  # (axes, starts, ends, decrease_axis, infer_flags)
    ([0], [1], [2], [], []),
    ([1, 2], [0, -3], [2, 100], [], []),
    ([0, 2], [-1, 1], [10000000, 3], [0], []),
    ([1], [1], [2], [1], []),
    ([0, 1, 2], [1, 2, 3], [2, 3, 4], [0, 1, 2], []),
    ([2], [-1], [0], [2], [-1]),
    ([0, 1, 2], [0, 0, 0], [9, 9, 9], [], []),
    ([0], [0], [1], [0], []),
    ([1], [2], [1], [], []),
    ([-1], [1], [3], [], []),
    ([3], [0], [1], [], []),
]
_STRIDED = [  # (axes, starts, ends, strides, decrease_axis, infer_flags)
    ([0, 2], [0, 1], [2, 4], [1, 2], [], []),
    ([1], [-1], [-4], [-1], [], []),
    ([2], [3], [-1], [-2], [], []),
    ([0, 1, 2], [1, 2, 3], [2, 3, 4], [1, 1, 1], [0, 1, 2], []),
    ([0, 1, 2], [0, 0, 0], [2, 3, 4], [1, 1, 1], [], []),
    ([1], [0], [3], [5], [1], []),
    ([2], [-1], [0], [1], [2], [-1]),
    ([0], [1], [1], [1], [], []),
    ([1], [0], [3], [0], [], []),
]
_TIMES = [[1, 1, 1], [2, 1, 3], [1, 4, 1], [3, 2, 2]]
_REPEATS = [[2], [1, 1, 1], [2, 1, 3], [2, 1, 1, 2], [0, 1, 1], [-1, 1, 1]]


def _forms(rng, shape, dtype):
    """X as a C-contiguous array, a strided view, a Fortran-ordered copy, 0-D and empty."""
    x = (rng.uniform(-3, 3, size=shape) * 5).astype(dtype)
    wide = (rng.uniform(-3, 3, size=shape[:-1] + (shape[-1] * 2,)) * 5).astype(dtype)
    return {
        "c": x,
        "fortran": np.asfortranarray(x),
        "strided": wide[..., ::2],
        "0d": x.reshape(-1)[:1].reshape(()).copy(),
        "empty": np.zeros((0,) + shape[1:], dtype),
    }


def _layout(results, key, outs):
    for name, value in sorted(outs.items()):
        a = np.asarray(value)
        results[f"{key}|{name}|layout"] = np.frombuffer(f"C={a.flags.c_contiguous}".encode(), dtype=np.uint8)


def _flat(outs):
    """A kernel's outputs, each value of a duplicable slot (broadcast_tensors') under a name of its own."""
    flat = {}
    for name, value in outs.items():
        flat.update({f"{name}{i}": v for i, v in enumerate(value)} if isinstance(value, list) else {name: value})
    return flat


def _run(results, record, direct, op, key, ins, attrs, ctx=None):
    """The op's kernel (and its grad op's, on a dOut of Out's shape and dtype) on ``ins``."""
    from pe_cli.ops import registry

    opdef = registry.get(op)
    direct = (lambda d: lambda *a: _flat(d(*a)))(direct)
    attrs = dict(opdef.default_attrs(), **attrs)
    record(results, key, lambda: direct(opdef, dict(ins), attrs, ctx))
    try:
        outs = direct(opdef, dict(ins), attrs, ctx)
    except Exception:
        return
    _layout(results, key, outs)
    grad_op = op + "_grad"
    if grad_op not in registry.all_op_types():
        return
    grad = registry.get(grad_op)
    out = np.asarray(outs["Out" if "Out" in outs else "Out0"])
    rng = np.random.default_rng(zlib.crc32(key.encode()))  # (the same dOut in both trees)
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        dout = (rng.uniform(-1, 1, size=out.shape) * 5).astype(dtype)
        dout = [dout] * len(ins["X"]) if isinstance(ins.get("X"), list) else dout
        gins = {s.name: v for s in grad.inputs for v in [dict(ins, **{"Out@GRAD": dout}).get(s.name)] if v is not None}
        record(results, f"{key}|grad|{dtype}", lambda: direct(grad, gins, attrs, ctx))
        try:
            _layout(results, f"{key}|grad|{dtype}", direct(grad, gins, attrs, ctx))
        except Exception:
            pass


def _slices(results, record, direct, rng):
    from pe_cli.kernels.context import KernelContext

    for dtype in _DTYPES:
        for form, x in _forms(rng, (2, 3, 4), dtype).items():
            for i, (axes, starts, ends, decrease, flags) in enumerate(_SLICES):
                attrs = dict(axes=axes, starts=starts, ends=ends, decrease_axis=decrease, infer_flags=flags)
                for zero_dim in (False, True):
                    key = f"slicing|slice|{dtype}|{form}|{i}|{zero_dim}"
                    _run(results, record, direct, "slice", key, {"Input": x}, attrs, KernelContext(zero_dim=zero_dim))
            for i, (axes, starts, ends, strides, decrease, flags) in enumerate(_STRIDED):
                attrs = dict(axes=axes, starts=starts, ends=ends, strides=strides, decrease_axis=decrease)
                attrs["infer_flags"] = flags
                for zero_dim in (False, True):
                    key = f"slicing|strided_slice|{dtype}|{form}|{i}|{zero_dim}"
                    ctx = KernelContext(zero_dim=zero_dim)
                    _run(results, record, direct, "strided_slice", key, {"Input": x}, attrs, ctx)
    x = rng.uniform(-1, 1, (3, 4, 5)).astype("float32")
    for slot, op in (("StartsTensor", "slice"), ("StartsTensorList", "slice"), ("StridesTensor", "strided_slice")):
        for values in ([1, 0, -2], [0, 2, 1], [-1, -1, -1]):
            given = (
                np.array(values, np.int64) if not slot.endswith("List") else [np.array([v], np.int32) for v in values]
            )
            attrs = dict(axes=[0, 1, 2], starts=[0, 0, 0], ends=[3, 4, 5], decrease_axis=[], infer_flags=[-1] * 3)
            if op == "strided_slice":
                attrs.update(strides=[1, 1, 1], starts=[-1, -1, -1], ends=[-10, -10, -10])
            _run(results, record, direct, op, f"slicing|{op}|{slot}|{values}", {"Input": x, slot: given}, attrs)


def _tiles(results, record, direct, rng):
    for dtype in _DTYPES:
        for form, x in _forms(rng, (2, 1, 3), dtype).items():
            for times in _TIMES + [[2, 2], []]:
                key = f"slicing|expand|{dtype}|{form}|{times}"
                _run(results, record, direct, "expand", key, {"X": x}, {"expand_times": times})
            for reps in _REPEATS:
                key = f"slicing|tile|{dtype}|{form}|{reps}"
                _run(results, record, direct, "tile", key, {"X": x}, {"repeat_times": reps})
            for shape in ([2, 4, 3], [-1, 5, -1], [3, 2, 2, 3], [2, 1, 3], [2, 3], [1, 1], [4, -1, 1, 3]):
                _run(
                    results,
                    record,
                    direct,
                    "expand_v2",
                    f"slicing|expand_v2|{dtype}|{form}|{shape}",
                    {"X": x},
                    {"shape": shape},
                )
                _run(
                    results,
                    record,
                    direct,
                    "expand_as_v2",
                    f"slicing|expand_as_v2|{dtype}|{form}|{shape}",
                    {"X": x, "Y": np.zeros([abs(d) for d in shape], "float32")},
                    {},
                )
                _run(
                    results,
                    record,
                    direct,
                    "expand_as_v2",
                    f"slicing|expand_as_v2_attr|{dtype}|{form}|{shape}",
                    {"X": x},
                    {"target_shape": shape},
                )
            for target in ((4, 3, 6), (2, 1, 3), (3, 2, 3), (2, 3)):
                key = f"slicing|expand_as|{dtype}|{form}|{target}"
                _run(results, record, direct, "expand_as", key, {"X": x, "target_tensor": np.zeros(target)}, {})
            xs = [x, np.ones((4,) + x.shape[1:], dtype)[:, :1] if x.ndim == 3 else np.ones(3, dtype)]
            _run(
                results, record, direct, "broadcast_tensors", f"slicing|broadcast_tensors|{dtype}|{form}", {"X": xs}, {}
            )
    x = rng.uniform(-1, 1, (2, 3)).astype("float32")
    for values in ([2, 1], [1, 3], [3, 3]):
        _run(
            results,
            record,
            direct,
            "expand",
            f"slicing|ExpandTimes|{values}",
            {"X": x, "ExpandTimes": np.array(values, np.int32)},
            {"expand_times": [1, 1]},
        )
        _run(
            results,
            record,
            direct,
            "tile",
            f"slicing|repeat_times_tensor|{values}",
            {"X": x, "repeat_times_tensor": [np.array([v], np.int64) for v in values]},
            {"repeat_times": [-1, -1]},
        )
        _run(
            results,
            record,
            direct,
            "expand_v2",
            f"slicing|Shape|{values}",
            {"X": x[:1], "Shape": np.array([v * 2 for v in values], np.int32)},
            {"shape": []},
        )


def _steps(results, rng):
    """Each op as an executor step run on values of two shapes and dtypes, the first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("slice", "Input", dict(axes=[1], starts=[1], ends=[3], decrease_axis=[], infer_flags=[])),
        ("slice", "Input", dict(axes=[0, 1], starts=[0, 0], ends=[9, 9], decrease_axis=[], infer_flags=[])),
        (
            "strided_slice",
            "Input",
            dict(axes=[2], starts=[-1], ends=[-9], strides=[-2], decrease_axis=[], infer_flags=[]),
        ),
        ("expand", "X", {"expand_times": [2, 1, 2]}),
        ("tile", "X", {"repeat_times": [2, 2]}),
        ("expand_v2", "X", {"shape": [2, -1, 4, -1]}),
    ]
    xs = [rng.uniform(-1, 1, (2, 4, 5)).astype("float32")] * 2 + [rng.uniform(-1, 1, (3, 4, 6))]
    xs.append(np.asfortranarray(rng.uniform(-1, 1, (2, 4, 5)).astype("float32")))
    for i, (op, slot, attrs) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in ("x", "out"):
            block.create_var(name=n)
        block.append_op(op, {slot: ["x"]}, {"Out": ["out"]}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j, x in enumerate(xs):
            values, key = Values({"x": x}), f"slicing|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            a = values["out"]
            results[f"{key}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)
            _layout(results, key, {"out": a})


def slicing(results, record, direct, rng):
    """Every form above into ``results`` (op_case_bytes.py's ``_record`` and ``_direct``)."""
    _slices(results, record, direct, rng)
    _tiles(results, record, direct, rng)
    _steps(results, rng)
