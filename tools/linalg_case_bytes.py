"""The numpy/LAPACK linear algebra's results for tools/op_case_bytes.py's ``linalg_lapack`` family: the ops of
ops/linalg_solve.py (mv, determinant, slogdeterminant, solve, triangular_solve, cholesky_solve, multi_dot,
matrix_power), ops/linalg_decomposing.py (matrix_rank, eigh, eigvalsh, eig, eigvals, qr, lu, lu_unpack),
ops/linalg_decomposition.py (svd, lstsq) and inverse, cholesky and spectral_norm, with their grad ops, called through
their CPU kernels (``OpDef.kernel``): float32, float64, ints and complex where the op takes them, mixed dtypes,
batches, empty matrices, C-contiguous, Fortran-ordered and strided inputs, every attribute's values, singular and
non-positive-definite matrices (their refusals), shapes that do not meet; each grad op on its forward's outputs and
dOuts in the outputs' dtypes (each optional one alone and together); and some of them as executor steps (_steps: a
Meta kept per shape signature) on values of a few shapes and dtypes, and values they refuse."""

import itertools

import numpy as np

from matrix_case_bytes import _called, _values


def _forms(x):
    """x C-contiguous, Fortran-ordered and strided (its last dim every other column of a wider array)."""
    forms = {"c": x}
    if x.ndim >= 2:
        wide = np.zeros(x.shape[:-1] + (x.shape[-1] * 2,), x.dtype)
        wide[..., ::2] = x
        forms.update(fortran=np.asfortranarray(x), strided=wide[..., ::2])
    return forms


def _square(key, shape, dtype, kind="general"):
    """Square matrices of ``shape``: well-conditioned (general), symmetric positive definite (spd), singular."""
    a = _values(key, shape, "float64" if dtype[0] in "iu" else dtype)
    n = shape[-1]
    if kind == "spd":
        a = a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)
    elif kind == "singular" and n:
        a[..., -1, :] = a[..., 0, :]
    elif kind == "general":
        a = a + 2 * n * np.eye(n)
    return a.astype(dtype)


def _flat(outs):
    """A kernel's outputs, a list output's values as slot[i]."""
    flat = {}
    for slot, value in outs.items():
        if isinstance(value, list):
            flat.update({f"{slot}[{i}]": v for i, v in enumerate(value)})
        else:
            flat[slot] = value
    return flat


def _run(results, record, op, key, ins, attrs, grads=True):
    """The op on ``ins``, then its grad op (where it has one) on the forward's outputs and dOuts of their dtypes:
    each optional dOut alone and all of them."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef = registry.get(op)
    attrs = dict(opdef.default_attrs(), **attrs)
    kernel = _called(opdef)
    record(results, key, lambda: _flat(kernel(dict(ins), dict(attrs), KernelContext())))
    if not grads or op + "_grad" not in registry.all_op_types():
        return
    try:
        outs = kernel(dict(ins), dict(attrs), KernelContext())
    except Exception:
        return
    grad = registry.get(op + "_grad")
    gkernel = _called(grad)
    slots = [s for s in grad.inputs if s.name.endswith("@GRAD")]
    optional = [s.name for s in slots if s.optional]
    choices = [tuple(optional)] + ([(s,) for s in optional] if len(optional) > 1 else [])
    for chosen in choices if optional else [()]:
        given = dict(ins, **outs)
        for s in slots:
            if s.optional and s.name not in chosen:
                continue
            out = np.asarray(outs[s.name[: -len("@GRAD")]])
            given[s.name] = _values(f"{key}|{s.name}", out.shape, out.dtype.name)
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        record(results, f"{key}|grad|{'+'.join(chosen)}", lambda: _flat(gkernel(gins, dict(attrs), KernelContext())))


_REALS = ("float64", "float32")


def _solving(results, record):
    base = "linalg"
    for dt in _REALS + ("int64",):
        for xs, vs in (((4, 3), (3,)), ((0, 3), (3,)), ((3, 0), (0,))):
            for form, x in _forms(_values(f"{base}|mv|{xs}", xs, dt)).items():
                for vdt in dict.fromkeys([dt, "float64"]):
                    ins = {"X": x, "Vec": _values(f"{base}|mv|v|{vs}", vs, vdt)}
                    _run(results, record, "mv", f"{base}|mv|{dt}|{vdt}|{xs}|{form}", ins, {})
    _run(results, record, "mv", f"{base}|mv|bad", {"X": np.ones((2, 3)), "Vec": np.ones(4)}, {})
    for dt in _REALS + ("int64",):
        for shape in ((3, 3), (2, 3, 3), (0, 3, 3), (1, 1), (0, 0), (2, 3)):
            for kind in ("general", "singular"):
                sq = shape[-1] == shape[-2]
                a = _square(f"{base}|det|{shape}", shape, dt, kind) if sq else _values(f"{base}|{shape}", shape, dt)
                for form, x in _forms(a).items():
                    for op in ("determinant", "slogdeterminant", "matrix_power", "inverse"):
                        for n in (-2, -1, 0, 1, 3) if op == "matrix_power" else (None,):
                            attrs = {} if n is None else {"n": n}
                            key = f"{base}|{op}|{dt}|{shape}|{kind}|{form}|{n}"
                            _run(results, record, op, key, {"Input" if op != "matrix_power" else "X": x}, attrs)
    for dt in _REALS:
        for xs, ys in (
            ((3, 3), (3,)),
            ((3, 3), (3, 2)),
            ((2, 3, 3), (3, 2)),
            ((2, 3, 3), (1, 3, 2)),
            ((3, 3), (2, 3, 4)),
            ((2, 3, 3), (3,)),
            ((0, 3, 3), (3, 1)),
            ((3, 3), (3, 0)),
            ((3, 2), (3,)),
            ((3, 3), (4, 2)),
        ):
            for kind in ("general", "singular"):
                sq = xs[-1] == xs[-2]
                x0 = _square(f"{base}|sol|{xs}", xs, dt, kind) if sq else _values(f"{base}|{xs}", xs, dt)
                for form, x in _forms(x0).items():
                    for ydt in dict.fromkeys([dt, "float64"]):
                        y = _values(f"{base}|sol|y|{ys}", ys, ydt)
                        key = f"{base}|{dt}|{ydt}|{xs}|{ys}|{kind}|{form}"
                        _run(results, record, "solve", f"{key}|solve", {"X": x, "Y": y}, {})
                        if len(ys) < 2:
                            continue
                        for up, tr, unit in itertools.product((True, False), repeat=3):
                            attrs = {"upper": up, "transpose": tr, "unitriangular": unit}
                            _run(
                                results,
                                record,
                                "triangular_solve",
                                f"{key}|tri|{up}{tr}{unit}",
                                {"X": x, "Y": y},
                                attrs,
                            )
                        spd = _square(f"{base}|chs|{xs}", xs, dt, "spd") if sq else x
                        factor = np.linalg.cholesky(spd.astype("float64")).astype(dt) if sq else spd
                        for up in (False, True):
                            f = np.ascontiguousarray(np.swapaxes(factor, -1, -2)) if up and sq else factor
                            ins = {"X": _values(f"{base}|chs|x|{ys}", ys, ydt), "Y": f if kind == "general" else x}
                            _run(results, record, "cholesky_solve", f"{key}|chsolve|{up}", ins, {"upper": up})


def _chains(results, record):
    for dt in _REALS + ("int64",):
        for shapes in (
            [(3,), (3, 4), (4, 2)],
            [(2, 3), (3, 4)],
            [(2, 3), (3, 4), (4,)],
            [(3,), (3,)],
            [(3,), (3, 4), (4, 5), (5,)],
            [(0, 3), (3, 2)],
            [(2, 3), (4, 2)],
        ):
            xs = [_values(f"md|{i}|{s}", s, dt) for i, s in enumerate(shapes)]
            for form in ("c", "fortran"):
                given = [np.asfortranarray(x) for x in xs] if form == "fortran" else xs
                _run(results, record, "multi_dot", f"md|{dt}|{shapes}|{form}", {"X": given}, {})


def _factoring(results, record):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    for dt in _REALS + ("complex128",):
        for shape in ((3, 3), (2, 4, 4), (0, 3, 3), (1, 1), (3, 2)):
            for kind in ("spd", "general", "singular"):
                a = _square(f"fac|{shape}", shape, dt, kind) if shape[-1] == shape[-2] else _values("fac", shape, dt)
                if kind == "singular" and dt[0] == "f" and shape[-1] == shape[-2]:
                    a = -_square(f"fac|{shape}", shape, dt, "spd")  # (negative definite: no Cholesky)
                for form, x in _forms(a).items():
                    key = f"fac|{dt}|{shape}|{kind}|{form}"
                    for up in (False, True):
                        _run(results, record, "cholesky", f"{key}|chol|{up}", {"X": x}, {"upper": up})
                    for uplo in ("L", "U"):
                        for op in ("eigh", "eigvalsh"):
                            _run(results, record, op, f"{key}|{op}|{uplo}", {"X": x}, {"UPLO": uplo})
                    for op in ("eig", "eigvals"):
                        _run(results, record, op, f"{key}|{op}", {"X": x}, {})
                    for herm, default, tol in ((False, True, 0.0), (True, True, 0.0), (False, False, 0.5)):
                        attrs = {"hermitian": herm, "use_default_tol": default, "tol": tol}
                        _run(results, record, "matrix_rank", f"{key}|rank|{herm}{default}{tol}", {"X": x}, attrs)
    for dt in _REALS:
        for shape in ((4, 3), (3, 4), (3, 3), (2, 4, 3), (2, 3, 4), (0, 3, 2), (3, 0)):
            for kind in ("general", "deficient"):
                a = _values(f"qr|{shape}", shape, dt)
                if kind == "deficient" and shape[-1] > 1 and shape[-2]:
                    a[..., :, 1] = 2 * a[..., :, 0]
                for form, x in _forms(a).items():
                    key = f"qr|{dt}|{shape}|{kind}|{form}"
                    for mode in ("reduced", "complete", "r"):
                        _run(results, record, "qr", f"{key}|{mode}", {"X": x}, {"mode": mode})
                    for full in (False, True):
                        _run(results, record, "svd", f"{key}|svd|{full}", {"X": x}, {"full_matrices": full})
                    _run(results, record, "matrix_rank", f"{key}|rank", {"X": x}, {})
                    lu = _called(registry.get("lu"))
                    record(results, f"{key}|lu", lambda: lu({"X": x}, {"pivots": True}, KernelContext()))
                    try:
                        outs = lu({"X": x}, {"pivots": True}, KernelContext())
                    except Exception:
                        continue
                    ins = {"X": outs["Out"], "Pivots": outs["Pivots"]}
                    _run(results, record, "lu_unpack", f"{key}|lu_unpack", ins, {})


def _least_squares(results, record):
    for dt in _REALS:
        for xs, ys in (
            ((5, 3), (5, 2)),
            ((3, 5), (3, 2)),
            ((2, 5, 3), (2, 5, 1)),
            ((4, 4), (4, 3)),
            ((0, 5, 3), (0, 5, 2)),
            ((5, 3), (4, 2)),
            ((2, 5, 3), (5, 2)),
        ):
            for kind in ("general", "deficient"):
                a = _values(f"ls|{xs}", xs, dt)
                if kind == "deficient" and a.size:
                    a[..., :, 1] = a[..., :, 0]
                for form, x in _forms(a).items():
                    y = _values(f"ls|y|{ys}", ys, dt)
                    for driver in ("gels", "gelsd", "gelss", "gelsy"):
                        for rcond in (0.0, 0.5, -1):
                            attrs = {"driver": driver, "rcond": rcond}
                            key = f"ls|{dt}|{xs}|{ys}|{kind}|{form}|{driver}|{rcond}"
                            _run(results, record, "lstsq", key, {"X": x, "Y": y}, attrs)


def _spectral(results, record):
    for dt in _REALS:
        for shape in ((4, 3), (2, 3, 4), (3, 1), (2, 3, 2, 2)):
            for dim in range(-1, len(shape)):
                h = shape[dim]
                rest = int(np.prod(shape)) // h
                for form, w in _forms(_values(f"sn|{shape}", shape, dt)).items():
                    u, v = _values(f"sn|u|{h}", (h,), dt), _values(f"sn|v|{rest}", (rest,), dt)
                    for iters, eps in ((0, 1e-12), (1, 1e-12), (3, 0.5)):
                        attrs = {"dim": dim, "power_iters": iters, "eps": eps}
                        key = f"sn|{dt}|{shape}|{dim}|{form}|{iters}|{eps}"
                        _run(results, record, "spectral_norm", key, {"Weight": w, "U": u, "V": v}, attrs)


def _steps(results):
    """Ops as executor steps (a Meta kept per shape signature), each on values of a few shapes and dtypes, the first
    twice, and on values numpy refuses."""
    from pe_cli.base.places import CPUPlace
    from pe_cli.executor.plan import OpStep, Values, run_step
    from pe_cli.framework import Program

    sq = [_square(f"st|{s}|{d}", s, d, "spd") for s, d in (((3, 3), "float64"), ((2, 4, 4), "float32"))]
    rect = [_values(f"st|r|{s}", s, d) for s, d in (((5, 3), "float64"), ((2, 3, 5), "float32"))]
    vec = {"float64": _values("st|v", (3,), "float64"), "float32": _values("st|v32", (3,), "float32")}
    forms = [  # (op, {slot: names}, output slots, attrs, feeds: name -> value)
        ("mv", {"X": ["x"], "Vec": ["v"]}, ["Out"], {}, [{"x": rect[0], "v": vec[d]} for d in vec]),
        ("solve", {"X": ["x"], "Y": ["y"]}, ["Out"], {}, [{"x": a, "y": a[..., :1]} for a in sq]),
        ("multi_dot", {"X": ["x", "v"]}, ["Out"], {}, [{"x": rect[0], "v": vec[d]} for d in vec]),
        ("eigh", {"X": ["x"]}, ["Eigenvalues", "Eigenvectors"], {"UPLO": "U"}, [{"x": a} for a in sq]),
        ("qr", {"X": ["x"]}, ["Q", "R"], {"mode": "reduced"}, [{"x": a} for a in rect]),
        ("svd", {"X": ["x"]}, ["U", "S", "VH"], {"full_matrices": False}, [{"x": a} for a in rect]),
        ("lu", {"X": ["x"]}, ["Out", "Pivots", "Infos"], {}, [{"x": a} for a in rect + sq]),
        ("cholesky", {"X": ["x"]}, ["Out"], {"upper": True}, [{"x": a} for a in sq] + [{"x": -sq[0]}]),
        (
            "lstsq",
            {"X": ["x"], "Y": ["y"]},
            ["Solution", "Residuals", "Rank", "SingularValues"],
            {"driver": "gelsd"},
            [
                {"x": rect[0], "y": rect[0][:, :2]},
                {"x": rect[1], "y": rect[1][..., :1]},
                {"x": rect[0], "y": vec["float64"]},
            ],
        ),
    ]
    for i, (op, ins, outs, attrs, feeds) in enumerate(forms):
        program = Program()
        block = program.global_block()
        for n in {n for names in ins.values() for n in names} | {o.lower() for o in outs}:
            block.create_var(name=n)
        block.append_op(op, ins, {o: [o.lower()] for o in outs}, attrs)
        step = OpStep(block.ops[0], CPUPlace())
        for j, feed in enumerate(feeds[:1] + feeds):
            values, key = Values(dict(feed)), f"linalg|step|{i}|{op}|{j}"
            try:
                run_step(step, values)
            except Exception as e:
                results[key + "|error"] = np.frombuffer(f"{type(e).__name__}: {e}".encode(), dtype=np.uint8)
                continue
            for o in outs:
                a = np.asarray(values[o.lower()])
                results[f"{key}|{o}|{a.dtype.str}|{a.shape}"] = np.frombuffer(a.tobytes(), dtype=np.uint8)


def linalg_lapack(results, record, direct):
    _steps(results)
    with np.errstate(all="ignore"):
        _solving(results, record)
        _chains(results, record)
        _factoring(results, record)
        _least_squares(results, record)
        _spectral(results, record)
