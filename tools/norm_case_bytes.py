"""affine_channel, lrn and norm's results for tools/op_case_bytes.py's ``norms`` family: the ops and their grad ops
called through their CPU kernels (``OpDef.kernel``) over dtypes (float16/32/64, ints, Scale and Bias of another
dtype: the "fresh" variants), shapes (empty values, ranks), C-contiguous, Fortran-ordered and strided inputs, both
layouts and attributes; each grad op on the forward's outputs and a dOut in Out's dtype and in float64."""

import numpy as np

from matrix_case_bytes import _called, _forms, _values


def _run(results, record, op, key, ins, attrs):
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef, grad = registry.get(op), registry.get(op + "_grad")
    attrs = dict(opdef.default_attrs(), **attrs)
    kernel, gkernel = _called(opdef), _called(grad)
    record(results, key, lambda: kernel(dict(ins), dict(attrs), KernelContext()))
    try:
        outs = kernel(dict(ins), dict(attrs), KernelContext())
    except Exception:
        return
    out = np.asarray(outs["Out"])
    for dtype in dict.fromkeys([out.dtype.name, "float64"]):
        given = dict(ins, **outs, **{"Out@GRAD": _values(f"{key}|{dtype}", out.shape, dtype)})
        gins = {s.name: given[s.name] for s in grad.inputs if given.get(s.name) is not None}
        record(results, f"{key}|grad|{dtype}", lambda: gkernel(gins, dict(attrs), KernelContext()))


def norms(results, record, direct):
    for dtype in ("float32", "float64", "float16", "int64"):
        for shape in ((2, 3, 4, 5), (2, 5), (0, 3, 2, 2), (1, 7, 1, 1), (3, 4, 0)):
            for form, x in _forms(f"norms|{dtype}|{shape}", shape, dtype).items():
                base = f"norms|{dtype}|{shape}|{form}"
                for axis in (1, -1, 0):
                    for eps in (1e-10, 0.5):
                        attrs = {"axis": axis, "epsilon": eps}
                        _run(results, record, "norm", f"{base}|norm|{axis}|{eps}", {"X": x}, attrs)
                for layout in ("NCHW", "NHWC"):
                    c = shape[1] if layout == "NCHW" else shape[-1]
                    for sdt in dict.fromkeys([dtype, "float64"]):
                        s, b = _values(f"{base}|s", (c,), sdt), _values(f"{base}|b", (c,), sdt)
                        key = f"{base}|affine|{layout}|{sdt}"
                        _run(
                            results,
                            record,
                            "affine_channel",
                            key,
                            {"X": x, "Scale": s, "Bias": b},
                            {"data_layout": layout},
                        )
                if len(shape) != 4:
                    continue
                for fmt in ("NCHW", "NHWC"):
                    for n, k, alpha, beta in (
                        (5, 2.0, 1e-4, 0.75),
                        (3, 1.0, 0.5, 0.5),
                        (1, 2.0, 0.1, 1.0),
                        (9, 3.0, 1e-3, 0.25),
                    ):
                        attrs = {"n": n, "k": k, "alpha": alpha, "beta": beta, "data_format": fmt}
                        _run(results, record, "lrn", f"{base}|lrn|{fmt}|{n}{k}{alpha}{beta}", {"X": abs(x)}, attrs)


def _run_groups(results, record, op, key, ins, attrs, stats):
    """instance_norm or group_norm and its grad op (on the forward's statistics and a Y@GRAD in two dtypes)."""
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    opdef, grad = registry.get(op), registry.get(op + "_grad")
    attrs = dict(opdef.default_attrs(), **attrs)
    kernel, gkernel = _called(opdef), _called(grad)
    record(results, key, lambda: kernel(dict(ins), dict(attrs), KernelContext()))
    try:
        outs = kernel(dict(ins), dict(attrs), KernelContext())
    except Exception:
        return
    y = np.asarray(outs["Y"])
    for dtype in dict.fromkeys([y.dtype.name, "float64"]):
        gins = {s: v for s, v in ins.items() if s != "Bias"}
        gins.update({s: outs[s] for s in stats}, **{"Y@GRAD": _values(f"{key}|{dtype}", y.shape, dtype)})
        record(results, f"{key}|grad|{dtype}", lambda: gkernel(gins, dict(attrs), KernelContext()))


def groups(results, record, direct):
    for dtype in ("float32", "float64", "float16"):
        for shape in ((2, 4, 3, 5), (2, 6), (0, 4, 2, 2), (1, 4, 1, 1), (3, 2, 4)):
            for form, x in _forms(f"groups|{dtype}|{shape}", shape, dtype).items():
                base = f"groups|{dtype}|{shape}|{form}"
                c = shape[1]
                for sdt in dict.fromkeys([dtype, "float64"]):
                    s, b = _values(f"{base}|s", (c,), sdt), _values(f"{base}|b", (c,), sdt)
                    for given in ({}, {"Scale": s}, {"Bias": b}, {"Scale": s, "Bias": b}):
                        ins, tag = dict(given, X=x), f"{sdt}|{''.join(sorted(given))}"
                        for eps in (1e-5, 0.5):
                            key = f"{base}|instance|{tag}|{eps}"
                            stats = ("SavedMean", "SavedVariance")
                            _run_groups(results, record, "instance_norm", key, ins, {"epsilon": eps}, stats)
                            for g in (1, 2, c, 3):
                                key = f"{base}|group|{tag}|{eps}|{g}"
                                attrs = {"epsilon": eps, "groups": g}
                                _run_groups(results, record, "group_norm", key, ins, attrs, ("Mean", "Variance"))
