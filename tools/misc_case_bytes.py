"""The results of the paddle.fft ops (fft_c2c, fft_r2c, fft_c2r, stft), einsum, renorm, masked_select, segment_pool,
set_value, unique_consecutive, viterbi_decode and their grad ops for tools/op_case_bytes.py's ``misc`` family, called
through their CPU kernels (``OpDef.kernel``): float32/64 (complex64/128, ints and float16 where a kernel takes them),
empty and 0-D values, C-contiguous, Fortran-ordered and strided inputs, each attribute variant, bad shapes and
attributes (the error's type and message), and a few ops as executor steps run on values of two shapes."""

import numpy as np

from matrix_case_bytes import _forms, _values


def _run(results, record, direct, op, key, ins, attrs=None, ctx=None):
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    record(results, f"{op}|{key}", lambda: _flat(direct(o, ins, full, ctx)))


def _flat(outs):
    """The outputs with a list slot's values each under its own name (einsum_grad's Operands@GRAD)."""
    flat = {}
    for slot, value in outs.items():
        if isinstance(value, list):
            flat.update({f"{slot}|{i}": v for i, v in enumerate(value)})
        else:
            flat[slot] = value
    return flat


def _fft(results, record, direct):
    norms = ("backward", "ortho", "forward")
    for dt in ("complex64", "complex128", "float32", "float64"):
        for shape, axes in (((4, 6), [1]), ((4, 6), [0, 1]), ((2, 3, 5), [-1, 0]), ((3, 0), [0]), ((3, 0), [1])):
            for form, x in _forms(f"c2c|{dt}|{shape}", shape, dt).items():
                for norm in norms:
                    for fwd in (True, False):
                        attrs = {"axes": axes, "normalization": norm, "forward": fwd}
                        key = f"{dt}|{shape}|{axes}|{form}|{norm}|{fwd}"
                        _run(results, record, direct, "fft_c2c", key, {"X": x}, attrs)
                        if not dt.startswith("complex"):
                            for side in (True, False):
                                _run(
                                    results,
                                    record,
                                    direct,
                                    "fft_r2c",
                                    f"{key}|{side}",
                                    {"X": x},
                                    {**attrs, "onesided": side},
                                )
                        else:
                            for n in (0, 7, 4, 1):
                                _run(
                                    results,
                                    record,
                                    direct,
                                    "fft_c2r",
                                    f"{key}|{n}",
                                    {"X": x},
                                    {**attrs, "last_dim_size": n},
                                )
    for dt in ("float32", "float64", "float16", "int32"):
        x = _values(f"fft|{dt}", (4, 5), dt)
        _run(results, record, direct, "fft_c2c", f"dtype|{dt}", {"X": x}, {"axes": [1]})
        _run(results, record, direct, "fft_r2c", f"dtype|{dt}", {"X": x}, {"axes": [1]})
    _run(results, record, direct, "fft_c2r", "0d", {"X": _values("fft0", (), "complex64")}, {"axes": [0]})
    _run(results, record, direct, "fft_c2r", "n1", {"X": _values("fftn1", (3, 1), "complex64")}, {"axes": [1]})
    for dt in ("float32", "float64", "float16"):
        for shape in ((40,), (2, 40), (3, 17), (2, 8), (2, 5)):
            for form, x in _forms(f"stft|{dt}|{shape}", shape, dt).items():
                for n_fft, hop in ((8, 4), (8, 3), (16, 16), (5, 2)):
                    for w_dt in dict.fromkeys([dt, "float64"]):
                        w = _values(f"stft|w|{n_fft}|{w_dt}", (n_fft,), w_dt)
                        for normalized in (False, True):
                            attrs = {"n_fft": n_fft, "hop_length": hop, "normalized": normalized}
                            key = f"{dt}|{shape}|{form}|{n_fft}|{hop}|{w_dt}|{normalized}"
                            _run(results, record, direct, "stft", key, {"X": x, "Window": w}, attrs)
    x = _values("stft2", (2, 20), "float32")
    _run(
        results,
        record,
        direct,
        "stft",
        "twosided",
        {"X": x, "Window": _values("w", (8,), "float32")},
        {"n_fft": 8, "onesided": False},
    )


_EQUATIONS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("i,i->", [(5,), (5,)]),
    ("ij->", [(3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("bij,bjk->bik", [(1, 3, 4), (2, 4, 5)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(3, 1), (1, 4)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]),
    ("ij,jk->ik", [(0, 4), (4, 5)]),
    ("ij,jk->ik", [(3, 0), (0, 5)]),
    ("i...->...", [(3, 2, 2)]),
    ("ij,jk->ik", [(3, 4), (5, 5)]),
    ("ij,jk->iz", [(3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5)]),
    ("ijk->ij", [(3, 4)]),
    ("ij->ii", [(3, 4)]),
    ("i.j->ij", [(3, 4)]),
]


def _einsum(results, record, direct):
    from pe_cli.kernels.context import KernelContext

    for dt in ("float32", "float64"):
        for e, (eq, shapes) in enumerate(_EQUATIONS):
            forms = [_forms(f"es|{dt}|{e}|{i}", s, dt) for i, s in enumerate(shapes)]
            for form in ("c", "fortran", "strided"):
                ops = [f.get(form, f["c"]) for f in forms]
                for zero_dim in (False, True):
                    key = f"{dt}|{e}|{eq}|{form}|{zero_dim}"
                    ctx = KernelContext(zero_dim=zero_dim)
                    _run(results, record, direct, "einsum", key, {"Operands": ops}, {"equation": eq}, ctx)
                    try:
                        o = registry_kernel("einsum")({"Operands": ops}, {"equation": eq}, ctx)["Out"]
                    except Exception:
                        continue
                    for g_dt in dict.fromkeys([dt, "float64"]):
                        g = _values(f"es|{key}|g|{g_dt}", np.shape(o), g_dt)
                        ins = {"Operands": ops, "Out@GRAD": g}
                        _run(results, record, direct, "einsum_grad", f"{key}|{g_dt}", ins, {"equation": eq})
    mixed = [_values("em1", (3, 4), "float32"), _values("em2", (4, 2), "float64")]
    _run(results, record, direct, "einsum", "mixed", {"Operands": mixed}, {"equation": "ij,jk->ik"})
    ints = [_values("ei1", (3, 4), "int32"), _values("ei2", (4, 2), "int32")]
    _run(results, record, direct, "einsum", "ints", {"Operands": ints}, {"equation": "ij,jk->ik"})


def registry_kernel(op):
    from pe_cli.kernels.context import takes_context
    from pe_cli.ops import registry

    kernel = registry.get(op).kernel("cpu")
    return kernel if takes_context(kernel) else lambda ins, attrs, ctx=None: kernel(ins, attrs)


def _renorm(results, record, direct):
    for dt in ("float32", "float64", "float16", "int32"):
        for shape in ((3, 4), (2, 3, 4), (0, 3), (5,), (3, 4, 0)):
            for form, x in _forms(f"rn|{dt}|{shape}", shape, dt).items():
                for p, axis, max_norm in ((2.0, -1, 1.0), (1.0, 0, 2.5), (3.0, 1, 0.5), (2.0, 1, 100.0), (0.5, 0, 0.0)):
                    attrs = {"p": p, "axis": axis, "max_norm": max_norm}
                    key = f"{dt}|{shape}|{form}|{p}|{axis}|{max_norm}"
                    _run(results, record, direct, "renorm", key, {"X": x}, attrs)
                    d = _values(f"rn|{key}|d", shape, dt)
                    _run(results, record, direct, "renorm_grad", key, {"X": x, "Out@GRAD": d}, attrs)
    _run(results, record, direct, "renorm", "0d", {"X": _values("rn0", (), "float32")}, {"axis": 0})


def _masked_select(results, record, direct):
    for dt in ("float32", "float64", "int32", "int64", "bool", "float16"):
        for xs, ms in (((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1)), ((0, 4), (4,)), ((), ()), ((2, 3), (5,))):
            for form, x in _forms(f"ms|{dt}|{xs}", xs, dt).items():
                m = _values(f"ms|m|{ms}", ms, "float64") > 0
                key = f"{dt}|{xs}|{ms}|{form}"
                _run(results, record, direct, "masked_select", key, {"X": x, "Mask": m})
                try:
                    y = registry_kernel("masked_select")({"X": x, "Mask": m}, {})["Y"]
                except Exception:
                    continue
                for g_dt in dict.fromkeys([dt, "float64"]):
                    dy = _values(f"ms|{key}|dy|{g_dt}", np.shape(y), g_dt)
                    ins = {"X": x, "Mask": m, "Y@GRAD": dy}
                    _run(results, record, direct, "masked_select_grad", f"{key}|{g_dt}", ins)
    x = _values("msi", (3, 4), "float32")
    _run(results, record, direct, "masked_select", "intmask", {"X": x, "Mask": np.array([0, 2])})


def _segment_pool(results, record, direct):
    ids_forms = {
        "sorted": np.array([0, 0, 1, 3, 3, 3], "int64"),
        "int32": np.array([0, 1, 1, 1, 2, 2], "int32"),
        "one": np.zeros(6, "int64"),
        "unsorted": np.array([0, 2, 1, 1, 3, 3], "int64"),
        "negative": np.array([-1, 0, 0, 1, 1, 1], "int64"),
    }
    for dt in ("float32", "float64", "int32", "int64", "float16"):
        for rest in ((), (3,), (2, 3)):
            shape = (6,) + rest
            for form, x in _forms(f"sp|{dt}|{shape}", shape, dt).items():
                for name, ids in ids_forms.items():
                    for kind in ("SUM", "MEAN", "MAX", "MIN"):
                        key = f"{dt}|{shape}|{form}|{name}|{kind}"
                        ins = {"X": x, "SegmentIds": ids}
                        _run(results, record, direct, "segment_pool", key, ins, {"pooltype": kind})
                        try:
                            outs = registry_kernel("segment_pool")(ins, {"pooltype": kind})
                        except Exception:
                            continue
                        d = _values(f"sp|{key}|d", np.shape(outs["Out"]), dt)
                        gins = {**ins, "Out": outs["Out"], "SummedIds": outs["SummedIds"], "Out@GRAD": d}
                        _run(results, record, direct, "segment_pool_grad", key, gins, {"pooltype": kind})
    empty = {"X": np.zeros((0, 3), "float32"), "SegmentIds": np.zeros(0, "int64")}
    for kind in ("SUM", "MEAN", "MAX", "MIN"):
        _run(results, record, direct, "segment_pool", f"empty|{kind}", empty, {"pooltype": kind})
        gins = {**empty, "Out": np.zeros((0, 3), "float32"), "Out@GRAD": np.zeros((0, 3), "float32")}
        _run(results, record, direct, "segment_pool_grad", f"empty|{kind}", gins, {"pooltype": kind})


_SET_VALUE = [  # (Input shape, attributes, ValueTensor shape or None)
    ((4, 5), dict(axes=[0], starts=[1], ends=[3]), (2, 5)),
    ((4, 5), dict(axes=[0], starts=[1], ends=[3]), (5,)),
    ((4, 5), dict(axes=[0], starts=[1], ends=[3]), (1, 1)),
    ((4, 5), dict(axes=[0, 1], starts=[0, 1], ends=[4, 5], steps=[2, 2]), (2, 2)),
    ((4, 5), dict(axes=[1], starts=[-1], ends=[-6], steps=[-1]), (4, 5)),
    ((4, 5), dict(axes=[1], starts=[4], ends=[0], steps=[-2]), (4, 2)),
    ((4, 5), dict(axes=[0], starts=[2], ends=[3], decrease_axes=[0]), (5,)),
    ((4, 5), dict(axes=[0], starts=[2], ends=[3], decrease_axes=[0], none_axes=[0]), (1, 5)),
    ((4, 5), dict(axes=[0], starts=[-10], ends=[10]), (4, 5)),
    ((4, 5), dict(axes=[0], starts=[3], ends=[1]), (0, 5)),
    ((4, 5), dict(axes=[0], starts=[1], ends=[3], steps=[-1]), (0, 5)),
    ((4, 5), dict(axes=[0], starts=[1], ends=[3]), (3, 5)),
    ((2, 3, 4), dict(axes=[2, 0], starts=[1, 0], ends=[3, 1], decrease_axes=[0]), (3, 2)),
    ((2, 3, 4), dict(axes=[-1], starts=[0], ends=[4], steps=[3]), (2, 3, 2)),
    ((0, 3), dict(axes=[0], starts=[0], ends=[1]), (0, 3)),
    ((4, 5), dict(axes=[], starts=[], ends=[]), (4, 5)),
    ((4, 5), dict(axes=[0], starts=[1], ends=[3], none_axes=[1]), (2, 1, 5)),
]


def _set_value(results, record, direct):
    from pe_cli.base.dtypes import var_type as dtype_code

    for dt in ("float32", "float64", "int32", "int64", "bool"):
        for i, (shape, extra, vshape) in enumerate(_SET_VALUE):
            for form, x in _forms(f"sv|{dt}|{i}", shape, dt).items():
                v = _values(f"sv|{dt}|{i}|v", vshape, dt)
                key = f"{dt}|{i}|{form}"
                _run(results, record, direct, "set_value", f"{key}|tensor", {"Input": x, "ValueTensor": v}, extra)
                for v_dt in dict.fromkeys([dt, "float64"]):
                    vv = _values(f"sv|{dt}|{i}|v|{v_dt}", vshape, v_dt)
                    _run(
                        results, record, direct, "set_value", f"{key}|t|{v_dt}", {"Input": x, "ValueTensor": vv}, extra
                    )
                for values, vs in (([2.5], [1]), ([1.0, -2.0, 3.0, 4.0, 5.0], [5]), ([7], []), ([1, 2], [3])):
                    attrs = dict(extra, values=values, shape=vs, dtype=dtype_code(dt))
                    _run(results, record, direct, "set_value", f"{key}|attr|{values}|{vs}", {"Input": x}, attrs)
                for g_dt in dict.fromkeys([dt, "float64"]):
                    d = _values(f"sv|{key}|d|{g_dt}", shape, g_dt)
                    _run(
                        results,
                        record,
                        direct,
                        "set_value_grad",
                        f"{key}|{g_dt}",
                        {"Out@GRAD": d, "ValueTensor": v},
                        extra,
                    )
                    _run(results, record, direct, "set_value_grad", f"{key}|{g_dt}|nov", {"Out@GRAD": d}, extra)
    x = _values("svz", (4, 5), "float32")
    _run(
        results,
        record,
        direct,
        "set_value",
        "step0",
        {"Input": x, "ValueTensor": x[:1]},
        dict(axes=[0], starts=[0], ends=[1], steps=[0]),
    )


def _unique_consecutive(results, record, direct):
    for dt in ("float32", "float64", "int32", "int64", "bool", "float16"):
        for shape in ((10,), (4, 3), (3, 4, 2), (0,), (0, 3), ()):
            base = np.round(_values(f"uc|{dt}|{shape}", shape, "float64") / 3)
            if len(shape) >= 1 and shape[0] > 1:
                base.reshape(shape[0], -1)[1] = base.reshape(shape[0], -1)[0]
            x = base.astype(dt)
            forms = {"c": x}
            if len(shape) >= 2:
                forms.update(fortran=np.asfortranarray(x), strided=np.repeat(x, 2, axis=-1)[..., ::2])
            for form, x in forms.items():
                for axis in ([], [0], [-1], [1], [5]):
                    for idt in (2, 3):
                        attrs = {"axis": axis, "dtype": idt, "return_inverse": True, "return_counts": True}
                        key = f"{dt}|{shape}|{form}|{axis}|{idt}"
                        _run(results, record, direct, "unique_consecutive", key, {"X": x}, attrs)


def _viterbi(results, record, direct):
    for dt in ("float32", "float64"):
        for b, t, tags in ((3, 5, 4), (2, 1, 3), (0, 4, 3), (4, 6, 5)):
            x = _values(f"vt|{dt}|{b}|{t}", (b, t, tags), dt)
            trans = _values(f"vt|{dt}|{tags}|tr", (tags, tags), dt)
            for lens in ("full", "mixed", "zero"):
                n = {"full": [t] * b, "mixed": [(i * 2) % (t + 1) for i in range(b)], "zero": [0] * b}[lens]
                for l_dt in ("int64", "int32"):
                    for bos in (True, False):
                        ins = {"Input": x, "Transition": trans, "Length": np.array(n, l_dt)}
                        key = f"{dt}|{b}|{t}|{tags}|{lens}|{l_dt}|{bos}"
                        _run(results, record, direct, "viterbi_decode", key, ins, {"include_bos_eos_tag": bos})
    x = _values("vt|tie", (2, 3, 3), "float32")
    ins = {"Input": np.zeros_like(x), "Transition": np.zeros((3, 3), "float32"), "Length": np.array([3, 2])}
    _run(results, record, direct, "viterbi_decode", "ties", ins)


def _steps(results):
    """einsum, renorm, masked_select, set_value and viterbi_decode as executor steps on values of two shapes, the
    first twice (its Meta kept)."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    forms = [
        ("renorm", {"X": ["a"]}, ["Out"], {"axis": 1, "max_norm": 0.5}, [(3, 4), (3, 4), (2, 5)]),
        ("masked_select", {"X": ["a"], "Mask": ["m"]}, ["Y"], {}, [(3, 4), (3, 4), (2, 5)]),
        (
            "set_value",
            {"Input": ["a"]},
            ["Out"],
            dict(axes=[0], starts=[0], ends=[1], values=[3.0], shape=[1]),
            [(3, 4), (3, 4), (2, 5)],
        ),
        ("unique_consecutive", {"X": ["a"]}, ["Out", "Index", "Counts"], {"axis": [0]}, [(3, 4), (3, 4), (2, 5)]),
        ("fft_r2c", {"X": ["a"]}, ["Out"], {"axes": [1]}, [(3, 4), (3, 4), (2, 5)]),
    ]
    for i, (op, ins, outs, attrs, shapes) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in ["a", "m"] + [o.lower() for o in outs]:
            block.create_var(name=n)
        block.append_op(op, ins, {o: [o.lower()] for o in outs}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j, s in enumerate(shapes):
            a = np.round(_values(f"misc|step|{i}|{j}", s, "float32"))
            values, key = Values({"a": a, "m": a > 0}), f"misc|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for o in outs:
                v = np.asarray(values[o.lower()])
                results[f"{key}|{o}|{v.dtype.str}|{v.shape}"] = np.frombuffer(v.tobytes(), dtype=np.uint8)


def misc(results, record, direct):
    _fft(results, record, direct)
    _einsum(results, record, direct)
    _renorm(results, record, direct)
    _masked_select(results, record, direct)
    _segment_pool(results, record, direct)
    _set_value(results, record, direct)
    _unique_consecutive(results, record, direct)
    _viterbi(results, record, direct)
    _steps(results)
