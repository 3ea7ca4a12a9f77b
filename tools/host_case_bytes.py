"""The results of the ops that touch the scope, files or Python rather than compute (the dependency ops, transfer_dtype,
coalesce_tensor, delete_var, feed, fetch, print, assert, load, load_combine, save, save_combine) for
tools/op_case_bytes.py's ``host`` family, called through their CPU kernels (``OpDef.kernel``) and their executor
steps (``OpDef.step_kernel``): dtypes, 0-D, empty, Fortran-ordered and strided values, each attribute's forms, LoDs,
the refusals; beside each output's bytes whether it is the input itself (a value passed on) or shares its memory,
the text print writes (its time fixed), the LoD a kernel hands back, and the bytes of each file written."""

import contextlib
import io
import os
import shutil

import numpy as np

from matrix_case_bytes import _forms, _values

FILES = "/tmp/s95-host-files"  # (a fixed folder: the refusals name their paths)


def _calls(op):
    """(name, call(ins, attrs, ctx)) for the op's kernel and a fresh executor step of it."""
    from pe_cli.kernels.context import takes_context
    from pe_cli.ops import registry

    o = registry.get(op)

    def kernel(ins, attrs, ctx):
        k = o.kernel("cpu")
        return k(ins, attrs, ctx) if takes_context(k) else k(ins, attrs)

    def step(ins, attrs, ctx):
        k = o.step_kernel("cpu")
        return k(ins, attrs, ctx) if takes_context(k) else k(ins, attrs)

    return o, (("kernel", kernel), ("step", step))


def _flat(outs, ins, ctx):
    """Every output as arrays (a list slot's per variable; a tensor array's items), with whether it is an input's
    value itself or shares an input's memory, and the LoD the kernel handed back."""
    inputs = [v for vs in ins.values() for v in (vs if isinstance(vs, list) else [vs]) if v is not None]
    flat = {}
    for slot, vs in sorted(outs.items()):
        for i, v in enumerate(vs if isinstance(vs, list) else [vs]):
            key = f"{slot}[{i}]" if isinstance(vs, list) else slot
            if v is None:
                flat[key + "|none"] = np.array(0)
                continue
            flat[key] = v
            flat[key + "|is_input"] = np.array([v is x for x in inputs])
            if isinstance(v, np.ndarray):
                shares = [isinstance(x, np.ndarray) and np.shares_memory(v, x) for x in inputs]
                flat[key + "|shares"] = np.array(shares)
                if any(shares):  # (a value passed on: its layout is the input's; a new array's is not compared)
                    flat[key + "|cont"] = np.array([v.flags.c_contiguous, v.flags.writeable])
        if isinstance(vs, list):
            flat[slot + "|type"] = np.frombuffer(type(vs).__name__.encode(), np.uint8)
            flat[slot + "|lods"] = np.frombuffer(repr(getattr(vs, "lods", None)).encode(), np.uint8)
    if ctx is not None:
        flat["@lod"] = np.frombuffer(repr((ctx.out_lod, ctx.out_lods)).encode(), np.uint8)
    return flat


def _run(results, record, op, key, ins, attrs=None, ctx=None, after=None):
    from pe_cli.kernels.context import KernelContext

    o, calls = _calls(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    for name, call in calls:

        def run(call=call):
            c = (ctx or KernelContext)()
            outs = _flat(call(dict(ins), dict(full), c), ins, c)
            if after is not None:
                outs.update(after())
            return outs

        record(results, f"host|{op}|{key}|{name}", run)


_DTYPES = ("float32", "float64", "float16", "int32", "int64", "bool", "uint8")


def _x(key, shape, dt):
    """Values of ``dt`` and ``shape``: an array, 0-D too (as the executor hands a kernel its values)."""
    x = np.asarray(_values(key, shape, "float64"))
    if dt == "bool":
        return np.asarray(x > 0)
    if dt[0] in "iu":
        return np.asarray((x * 7).astype(dt))
    return np.asarray(x.astype(dt))


def dependencies(results, record):
    for dt in _DTYPES:
        for shape in ((3, 4), (), (0, 3), (5,)):
            base = _x(f"dep|{dt}|{shape}", shape, dt)
            forms = {"c": base}
            if len(shape) == 2 and shape[0]:
                forms.update(fortran=np.asfortranarray(base), strided=_x(f"dep|{dt}|w", (3, 8), dt)[:, ::2])
            for form, x in forms.items():
                k = f"{dt}|{shape}|{form}"
                _run(results, record, "depend", k, {"X": x, "Dep": [base, None]})
                _run(results, record, "depend", k + "|nodep", {"X": x, "Dep": []})
                for op in ("share_data", "memcpy", "memcpy_d2h", "memcpy_h2d"):
                    _run(results, record, op, k, {"X": x}, {"dst_place_type": 1} if op.startswith("memcpy") else None)
                _run(results, record, "npu_identity", k, {"x": x})
                _run(results, record, "nop", k, {"X": [x, base]})
                _run(results, record, "share_buffer", k, {"X": [x, base]})
                for out in (0, 2, 3, 4, 5, 6, 20, 21):
                    _run(results, record, "transfer_dtype", f"{k}|{out}", {"X": x}, {"out_dtype": out, "in_dtype": 5})
    edge = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 1e40, -0.0, 2.5, -2.5, 255.5, 65504.0, 1e-8])
    for dt in ("float32", "float64"):
        for out in (0, 2, 3, 4, 5, 6, 20, 21):
            _run(results, record, "transfer_dtype", f"edge|{dt}|{out}", {"X": edge.astype(dt)}, {"out_dtype": out})
    _run(results, record, "nop", "none", {})
    _run(results, record, "nop", "empty", {"X": []})
    _run(results, record, "share_buffer", "one", {"X": [_x("sb", (2, 2), "float32")]})


def tensor_storage(results, record):
    shapes = (((3, 4), (5,), ()), ((0, 2), (1024,), (2, 3)), ((2, 2),), ())
    for dt in ("float32", "float64", "int32", "int64", "float16"):
        for i, group in enumerate(shapes):
            xs = [_x(f"ct|{dt}|{i}|{j}", s, dt) for j, s in enumerate(group)]
            if group and len(group[0]) == 2 and group[0][0] > 1:
                xs[0] = np.asfortranarray(xs[0])
            for attrs in (
                {"copy_data": True},
                {"copy_data": False},
                {"set_constant": True, "constant": 1.7},
                {"set_constant": True, "constant": float("nan")},
                {"copy_data": True, "set_constant": True, "constant": -2.0},
                {"copy_data": True, "dtype": "float64" if dt != "float64" else "float32"},
                {"check_name": True, "copy_data": True},
            ):
                full = dict({"dtype": dt}, **attrs)
                _run(results, record, "coalesce_tensor", f"{dt}|{i}|{sorted(attrs.items())}", {"Input": xs}, full)
                _fused_views(results, record, xs, full, f"{dt}|{i}|{sorted(attrs.items())}")
    _run(results, record, "delete_var", "two", {"X": [_x("dv", (2,), "float32"), None]})
    _run(results, record, "delete_var", "none", {"X": []})


def _fused_views(results, record, xs, attrs, key):
    """Whether coalesce_tensor's Output[i] are views of its FusedOutput (writing one shows in the other)."""
    from pe_cli.ops import registry

    o = registry.get("coalesce_tensor")

    def run():
        outs = o.kernel("cpu")({"Input": xs}, dict(o.default_attrs(), **attrs))
        fused = outs["FusedOutput"]
        return {f"Output[{i}]|view": np.array([np.shares_memory(v, fused)]) for i, v in enumerate(outs["Output"])}

    record(results, f"host|coalesce_tensor|{key}|views", run)


def feed_fetch(results, record):
    from pe_cli.base.tensor_array import TensorArray
    from pe_cli.kernels.context import KernelContext

    a, b = _x("ff|a", (3, 2), "float32"), _x("ff|b", (4,), "int64")
    holders = {
        "list": [a, b],
        "lods": TensorArray([a, b], [[[0, 1, 3]], None]),
        "none": [a, None],
        "array": TensorArray([a, b, a]),
    }
    for name, holder in holders.items():
        for col in (0, 1, 2, -1):
            _run(results, record, "feed", f"{name}|{col}", {"X": holder}, {"col": col}, KernelContext)
    _run(results, record, "feed", "notalist", {"X": a}, {"col": 0}, KernelContext)
    for col in (0, 2):
        for x in (a, b, _x("ff|c", (), "float64")):
            _run(results, record, "fetch", f"{col}|{x.shape}|{x.dtype}", {"X": x}, {"col": col})


def printing(results, record):
    import pe_cli.kernels.cpu.printing as printing
    from pe_cli.kernels.context import KernelContext

    class _Clock:
        @staticmethod
        def time():
            return 1700000000.5

    printing.time = _Clock  # (the printed time the same in both trees)
    for dt in ("float32", "float64", "int32", "int64", "bool", "float16", "uint8"):
        for shape in ((2, 3), (), (0,), (40,)):
            for form, x in _forms(f"pr|{dt}|{shape}", shape, "float64").items():
                x = _x(f"pr|{dt}|{shape}", shape, dt) if form == "c" else x.astype(dt)
                for attrs in (
                    {},
                    {"summarize": -1, "message": "m"},
                    {"summarize": 3, "print_tensor_name": False, "print_tensor_type": False},
                    {"print_tensor_shape": False, "print_tensor_lod": False},
                    {"print_phase": "BACKWARD"},
                    {"print_phase": "FORWARD", "is_forward": False},
                    {"print_phase": "BACKWARD", "is_forward": False, "first_n": 2},
                    {"first_n": 1},
                ):
                    state = {}
                    for n in range(3):
                        lod = {"In": [[0, 1, 2]]} if shape == (2, 3) and n == 1 else {}

                        def ctx(lod=lod, state=state):
                            return KernelContext(lod=lod, input_names={"In": ("x_var",)}, op_state=state)

                        buf = io.StringIO()
                        key = f"{dt}|{shape}|{form}|{sorted(attrs.items())}|{n}"
                        with contextlib.redirect_stdout(buf):
                            _run(results, record, "print", key, {"In": x}, attrs, ctx, after=lambda: _text(buf))


def _text(buf):
    return {"@stdout": np.frombuffer(buf.getvalue().encode(), np.uint8)}


def assertions(results, record):
    d = [_x("as|a", (2, 3), "float32"), _x("as|b", (), "int64"), _x("as|c", (0,), "float64"), _x("as|d", (9,), "bool")]
    for cond in (np.array([True]), np.array(True), np.array([False]), np.array(False), np.array([[0]], "bool")):
        for data in ([], d, d[:1]):
            for summarize in (-1, 0, 2, 20):
                _run(
                    results,
                    record,
                    "assert",
                    f"{cond.tolist()}|{len(data)}|{summarize}",
                    {"Cond": cond, "Data": data},
                    {"summarize": summarize},
                )


def _files():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)


def _file(path):
    def after():
        if not os.path.exists(path):
            return {"@file|missing": np.array(0)}
        with open(path, "rb") as f:
            return {"@file": np.frombuffer(f.read(), np.uint8)}

    return after


def tensor_file(results, record):
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.kernels.context import KernelContext

    _files()
    values = {
        dt: _x(f"tf|{dt}", (3, 4), dt) for dt in ("float32", "float64", "int32", "int64", "bool", "float16", "uint8")
    }
    values["0d"] = _x("tf|0d", (), "float32")
    values["empty"] = _x("tf|e", (0, 4), "float64")
    values["strided"] = _x("tf|s", (3, 8), "float32")[:, ::2]
    saved = []
    for name, x in values.items():
        for fp16 in (False, True):
            for lod in (None, [[0, 1, 3]]):
                if lod and x.shape[:1] != (3,):
                    continue
                path = os.path.join(FILES, f"{name}-{fp16}-{lod is not None}")
                attrs = {"file_path": path, "save_as_fp16": fp16}

                def ctx(lod=lod):
                    return KernelContext(lod={"X": lod} if lod else {})

                _run(results, record, "save", f"{name}|{fp16}|{lod}", {"X": x}, attrs, ctx, after=_file(path))
                saved.append(path)
    sr = SelectedRows(np.array([0, 3], "int64"), _x("tf|sr", (2, 3), "float32"), 5)
    path = os.path.join(FILES, "selected-rows")
    _run(results, record, "save", "selected_rows", {"X": sr}, {"file_path": path}, KernelContext, after=_file(path))
    _run(
        results,
        record,
        "save",
        "exists",
        {"X": values["float32"]},
        {"file_path": saved[0], "overwrite": False},
        KernelContext,
    )
    _run(
        results,
        record,
        "save",
        "dirs",
        {"X": values["int64"]},
        {"file_path": os.path.join(FILES, "a/b/c")},
        KernelContext,
        after=_file(os.path.join(FILES, "a/b/c")),
    )
    for path in saved + [os.path.join(FILES, "selected-rows"), os.path.join(FILES, "missing")]:
        base = os.path.basename(path)
        for attrs in (
            {},
            {"load_as_fp16": True},
            {"seek": 2, "shape": [2, 1]},
            {"seek": 0, "shape": [20]},
            {"seek": 1, "shape": [-1]},
        ):

            def ctx():
                return KernelContext()

            _run(results, record, "load", f"{base}|{sorted(attrs.items())}", {}, dict(attrs, file_path=path), ctx)
    np.save(os.path.join(FILES, "npy.npy"), values["float64"])
    _run(results, record, "load", "npy", {}, {"file_path": os.path.join(FILES, "npy")}, KernelContext)
    combined = [values["float32"], values["int64"], values["0d"], values["empty"]]
    lods = [[[0, 1, 3]], None, None, None]
    comb = os.path.join(FILES, "combined")
    for fp16 in (False, True):

        def sctx():
            return KernelContext(lod={"X": lods})

        _run(
            results,
            record,
            "save_combine",
            f"file|{fp16}",
            {"X": combined},
            {"file_path": comb + str(fp16), "save_as_fp16": fp16},
            sctx,
            after=_file(comb + str(fp16)),
        )
        _run(
            results,
            record,
            "save_combine",
            f"memory|{fp16}",
            {"X": combined},
            {"save_to_memory": True, "save_as_fp16": fp16},
            sctx,
        )
        _run(
            results,
            record,
            "save_combine",
            f"nolod|{fp16}",
            {"X": combined[1:]},
            {"save_to_memory": True, "save_as_fp16": fp16},
            KernelContext,
        )
    _run(
        results,
        record,
        "save_combine",
        "selected_rows",
        {"X": [values["float32"], sr]},
        {"file_path": comb + "sr"},
        KernelContext,
    )
    _run(
        results,
        record,
        "save_combine",
        "exists",
        {"X": combined},
        {"file_path": comb + "False", "overwrite": False},
        KernelContext,
    )
    for count in (4, 3, 5, 1):
        for fp16 in (False, True):

            def lctx(count=count):
                return KernelContext(output_counts={"Out": count})

            _run(
                results,
                record,
                "load_combine",
                f"{count}|{fp16}",
                {},
                {"file_path": comb + "False", "load_as_fp16": fp16},
                lctx,
            )
    with open(comb + "False", "rb") as f:
        data = f.read().decode("latin-1")

    def mctx():
        return KernelContext(output_counts={"Out": 4})

    _run(results, record, "load_combine", "memory", {}, {"file_path": data, "model_from_memory": True}, mctx)
    _run(results, record, "load_combine", "missing", {}, {"file_path": os.path.join(FILES, "missing")}, mctx)


def host(results, record, direct=None):
    dependencies(results, record)
    tensor_storage(results, record)
    feed_fetch(results, record)
    printing(results, record)
    assertions(results, record)
    tensor_file(results, record)
