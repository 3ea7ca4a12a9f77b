"""The results of identity_loss, fused_softmax_mask and their grad ops for tools/op_case_bytes.py's
``loss_identity`` and ``masked_softmax`` families, called through their CPU kernels (``OpDef.kernel``): float16/32/64
and int values (identity_loss), each reduction, empty and 0-D values, C-contiguous, Fortran-ordered and strided
inputs, masks broadcast over the heads or not, and each grad op on the forward's outputs."""

import numpy as np

from matrix_case_bytes import _forms, _values


def _run(results, record, direct, op, key, ins, attrs=None):
    from pe_cli.ops import registry

    o = registry.get(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    record(results, f"{op}|{key}", lambda: direct(o, ins, full, None))


def loss_identity(results, record, direct):
    for dt in ("float32", "float64", "float16", "int32"):
        for shape in ((3, 4), (0, 2), (), (5,)):
            for form, x in _forms(f"il|{dt}|{shape}", shape, dt).items():
                for r in (0, 1, 2):
                    key = f"{dt}|{shape}|{form}|{r}"
                    _run(results, record, direct, "identity_loss", key, {"X": x}, {"reduction": r})
                    d = _values(f"il|{key}|d", shape if r == 2 else (), dt)
                    _run(results, record, direct, "identity_loss_grad", key, {"X": x, "Out@GRAD": d}, {"reduction": r})


def masked_softmax(results, record, direct):
    for dt in ("float32", "float64"):
        for shape, mask in (((2, 3, 4, 5), (2, 1, 4, 5)), ((1, 2, 3, 3), (1, 1, 3, 3)), ((2, 2, 0, 4), (2, 1, 0, 4))):
            for form, x in _forms(f"ms|{dt}|{shape}", shape, dt).items():
                key = f"{dt}|{shape}|{form}"
                m = np.where(_values(f"ms|{key}|m", mask, dt) > 1, -1e4, 0).astype(dt)
                _run(results, record, direct, "fused_softmax_mask", key, {"X": x, "Mask": m})
                out = _values(f"ms|{key}|o", shape, dt)
                for gdt in dict.fromkeys([dt, "float64"]):
                    d = _values(f"ms|{key}|d", shape, gdt)
                    _run(
                        results, record, direct, "fused_softmax_mask_grad", f"{key}|{gdt}", {"Out": out, "Out@GRAD": d}
                    )


def partial_columns(results, record, direct):
    """partial_concat, partial_sum and their gradients: dtypes (mixed ones too), windows (a negative start, length
    -1: to the end, one that does not fit), one or three inputs, layouts, shapes they refuse."""

    def flat(run):
        def call():
            outs = run()
            return {
                f"{s}[{i}]": v for s, vs in outs.items() for i, v in enumerate(vs if isinstance(vs, list) else [vs])
            }

        return call

    from pe_cli.ops import registry

    for dts in (("float32",), ("float64", "float64", "float64"), ("float32", "float64"), ("int64", "int64")):
        for shape in ((4, 6), (0, 5), (3, 1)):
            xs = [_values(f"pc|{dts}|{shape}|{i}", shape, dt) for i, dt in enumerate(dts)]
            if len(shape) == 2 and shape[1] > 1:
                xs[0] = np.asfortranarray(xs[0])
            for start, length in ((0, -1), (1, 2), (-2, 1), (2, 9), (7, 1)):
                attrs = {"start_index": start, "length": length}
                for op in ("partial_concat", "partial_sum"):
                    o, g = registry.get(op), registry.get(op + "_grad")
                    key = f"partial|{op}|{dts}|{shape}|{start}|{length}"
                    full = dict(o.default_attrs(), **attrs)
                    record(results, key, flat(lambda o=o, full=full: direct(o, {"X": xs}, full, None)))
                    try:
                        out = direct(o, {"X": xs}, full, None)["Out"]
                    except Exception:
                        continue
                    for gdt in dict.fromkeys([out.dtype.name, "float64"]):
                        d = _values(f"{key}|d", out.shape, gdt)
                        gfull = dict(g.default_attrs(), **attrs)
                        run = flat(lambda g=g, d=d, gfull=gfull: direct(g, {"X": xs, "Out@GRAD": d}, gfull, None))
                        record(results, f"{key}|grad|{gdt}", run)
    bad = [np.ones((2, 3)), np.ones((2, 4))]
    o = registry.get("partial_sum")
    record(results, "partial|refused", flat(lambda: direct(o, {"X": bad}, dict(o.default_attrs()), None)))


def minus(results, record, direct):
    """Fluid 1.8's minus: X - Y of one shape over dtypes, sizes (the threaded rows too), layouts, and shapes it
    refuses."""
    from pe_cli.ops import registry

    o = registry.get("minus")
    for dt in ("float32", "float64", "int32", "int64", "float16"):
        for shape in ((3, 4), (0, 3), (), (70000,), (2, 3, 4)):
            for form, x in _forms(f"minus|{dt}|{shape}", shape, dt).items():
                y = _values(f"minus|{dt}|{shape}|y", shape, dt)
                record(results, f"minus|{dt}|{shape}|{form}", lambda x=x, y=y: direct(o, {"X": x, "Y": y}, {}, None))
    bad = {"X": np.ones((2, 3)), "Y": np.ones((3,))}
    record(results, "minus|refused", lambda: direct(o, bad, {}, None))


def cvm(results, record, direct):
    """cvm and cvm_grad: use_cvm or not, float32/64, empty batches, layouts, X with LoD (a CVM row per sequence) or
    without (one per row), a CVM of too few rows (refused)."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    fwd, grad = registry.get("cvm"), registry.get("cvm_grad")
    for dt in ("float32", "float64"):
        for n, lod in ((5, None), (5, [[0, 2, 5]]), (0, None), (4, [[0, 1, 1, 4]])):
            for form, x in _forms(f"cvm|{dt}|{n}", (n, 6), dt).items():
                x = np.abs(x) if form == "c" else x
                crows = n if lod is None else len(lod[0]) - 1
                for bad in (False, True):
                    c = np.abs(_values(f"cvm|{dt}|{n}|c", (max(crows - bad, 0), 2), dt))
                    for use in (True, False):
                        attrs = {"use_cvm": use}
                        key = f"cvm|{dt}|{n}|{lod}|{form}|{bad}|{use}"

                        def ctx(lod=lod):
                            return KernelContext(lod={} if lod is None else {"X": lod})

                        ins = {"X": x, "CVM": c}
                        record(results, key, lambda ins=ins, a=attrs: direct(fwd, ins, a, ctx()))
                        dy = _values(f"{key}|dy", (n, 6 if use else 4), dt)
                        gins = {"X": x, "CVM": c, "Y@GRAD": dy}
                        record(results, key + "|grad", lambda g=gins, a=attrs: direct(grad, g, a, ctx()))


def clip_by_norm(results, record, direct):
    """clip_by_norm and dgc_clip_by_norm: float16/32/64, norms above and below max_norm, empty and 0-D values, layouts,
    row-sparse X (duplicate rows), ramp-up steps before, at and after, and none."""
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.ops import registry

    c, d = registry.get("clip_by_norm"), registry.get("dgc_clip_by_norm")
    for dt in ("float32", "float64", "float16"):
        for shape in ((3, 4), (0, 2), (), (7,)):
            for form, x in _forms(f"cbn|{dt}|{shape}", shape, dt).items():
                for max_norm in (0.5, 100.0):
                    key = f"cbn|{dt}|{shape}|{form}|{max_norm}"
                    record(results, key, lambda x=x, m=max_norm: direct(c, {"X": x}, {"max_norm": m}, None))
                    for begin, step in ((-1, 0), (3, 1), (3, 3), (0, 9)):
                        ins = {"X": x, "current_step": np.array([step], "float32")}
                        attrs = {"max_norm": max_norm, "rampup_begin_step": begin}
                        record(results, f"{key}|dgc|{begin}|{step}", lambda i=ins, a=attrs: direct(d, i, a, None))
        rows = SelectedRows(np.array([2, 0, 2]), _values(f"cbn|{dt}|rows", (3, 4), dt), 5)
        for max_norm in (0.5, 100.0):
            record(
                results, f"cbn|{dt}|rows|{max_norm}", lambda m=max_norm: direct(c, {"X": rows}, {"max_norm": m}, None)
            )


def div_grad_grad(results, record, direct):
    """elementwise_div_grad_grad: float32/64, Y as X's shape or broadcast along axis, DDX or DDY missing, each subset
    of its outputs wanted."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    o = registry.get("elementwise_div_grad_grad")
    for dt in ("float32", "float64"):
        for xs, ys, axis in (((3, 4), (3, 4), -1), ((2, 3, 4), (3,), 1), ((2, 3), (3,), -1), ((0, 3), (3,), -1)):
            y = np.abs(_values(f"dgg|{dt}|{xs}|y", ys, dt)) + 0.5
            base = {"Y": y, "Out": _values(f"dgg|{dt}|{xs}|o", xs, dt), "DX": _values(f"dgg|{dt}|{xs}|dx", xs, dt)}
            for given in (("DDX", "DDY"), ("DDX",), ("DDY",), ()):
                ins = dict(base)
                ins.update({s: _values(f"dgg|{dt}|{xs}|{s}", xs if s == "DDX" else ys, dt) for s in given})
                for wanted in (None, {"DDOut"}, {"Y@GRAD", "DOut"}, {"DOut"}):
                    key = f"dgg|{dt}|{xs}|{ys}|{axis}|{given}|{sorted(wanted or [])}"

                    def call(ins=ins, wanted=wanted, axis=axis):
                        return direct(o, ins, {"axis": axis}, KernelContext(outputs=wanted))

                    record(results, key, call)
