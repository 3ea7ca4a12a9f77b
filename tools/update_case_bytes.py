"""tools/op_case_bytes.py's dumps of the update ops (its family ``optimizer``): sgd and momentum through their CPU
kernels on further dtypes, sizes and contexts, and the op cases of the updates numpy computes in three dtypes.
``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import importlib
import zlib

import numpy as np

NUMPY_UPDATES = (
    "adagrad",
    "decayed_adagrad",
    "rmsprop",
    "adamax",
    "adadelta",
    "ftrl",
    "lamb",
    "lars_momentum",
    "adamw",
    "proximal_gd",
    "proximal_adagrad",
)


def dense_updates(results, record, direct):
    """sgd and momentum through their CPU kernels (optimizer): float16/32/64 (and ints for sgd), empty, 0-D, a
    large array (the parallel twins), told nothing or to update in place (the inputs after the call recorded
    too), nesterov, Paddle 2.x's rescale_grad / l2_decay / MasterParam (multi_precision or not), row-sparse
    Grad (duplicate rows) and Param, mixed dtypes, a Grad numpy broadcasts, a two-value LearningRate."""
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.ops import registry

    rng = np.random.default_rng(13)
    momenta = [
        {},
        {"use_nesterov": True},
        {"rescale_grad": 0.5, "regularization_method": "l2_decay", "regularization_coeff": 0.1},
        {"multi_precision": True},
        {"multi_precision": False},
    ]
    for op, dtype, shape, extra in [
        (op, dtype, shape, extra)
        for op in ("sgd", "momentum")
        for dtype in ("float16", "float32", "float64") + (("int32",) if op == "sgd" else ())
        for shape in [(3, 4), (0,), (), ((1 << 16) + 3,)]
        for extra in (momenta if op == "momentum" else [{}])
    ]:

        def ins():
            r = np.random.default_rng(zlib.crc32(repr((op, dtype, shape, extra)).encode()))
            values = {s: (r.uniform(-2, 2, size=shape) * 4).astype(dtype) for s in ("Param", "Grad", "Velocity")}
            values["LearningRate"] = np.array([0.1], dtype if dtype != "int32" else "float32")
            if op == "sgd":
                del values["Velocity"]
            if "multi_precision" in extra:
                values["MasterParam"] = values["Param"].astype("float32" if dtype == "float16" else dtype)
            return values

        _calls(
            results,
            record,
            direct,
            registry.get(op),
            f"update|{op}|{dtype}|{shape}|{sorted(extra.items())}",
            ins,
            extra,
        )
    for op in ("sgd", "momentum"):
        for case, make in {
            "sparse_grad": lambda: {"Grad": SelectedRows(np.array([1, 3, 1]), rng.uniform(-1, 1, (3, 4)), 5)},
            "sparse_both": lambda: {
                "Param": SelectedRows(np.array([0, 1, 3]), rng.uniform(-1, 1, (3, 4)), 5),
                "Grad": SelectedRows(np.array([1, 3, 1]), rng.uniform(-1, 1, (3, 4)), 5),
            },
            "missing_row": lambda: {
                "Param": SelectedRows(np.array([0, 1]), rng.uniform(-1, 1, (2, 4)), 5),
                "Grad": SelectedRows(np.array([3]), rng.uniform(-1, 1, (1, 4)), 5),
            },
            "mixed": lambda: {"Grad": rng.uniform(-1, 1, (5, 4)).astype("float32")},
            "broadcast": lambda: {"Grad": rng.uniform(-1, 1, (4,))},
            "two_rates": lambda: {"LearningRate": np.array([0.1, 0.2])},
        }.items():
            for extra in [{}, {"rescale_grad": 2.0}] if op == "momentum" else [{}]:

                def ins(make=make):
                    values = {s: rng.uniform(-1, 1, (5, 4)) for s in ("Param", "Grad", "Velocity")}
                    values["LearningRate"] = np.array([0.1])
                    values.update(make())
                    return values if op == "momentum" else {k: v for k, v in values.items() if k != "Velocity"}

                _calls(
                    results, record, direct, registry.get(op), f"update|{op}|{case}|{sorted(extra.items())}", ins, extra
                )


def numpy_updates(results, record, direct):
    """The op cases of the updates numpy computes (adagrad, rmsprop, ..., adamw) and the row-sparse ones of sgd,
    momentum and adagrad through their CPU kernels, their float values in float16, float32 and float64, told
    nothing or to update in place."""
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.ops import registry

    cases = importlib.import_module("tests.ops.cases_optimizer").CASES
    cases += importlib.import_module("tests.ops.cases_adamw").CASES
    cases += importlib.import_module("tests.ops.cases_sparse").CASES  # (row-sparse sgd, momentum, adagrad)
    cases += importlib.import_module("tests.ops.cases_optimizer_proximal").CASES
    for i, case in enumerate(c for c in cases if c.op in NUMPY_UPDATES + ("sgd", "momentum", "adam", "increment")):
        for dtype in ("float16", "float32", "float64"):

            def ins(case=case, dtype=dtype):
                cast = {}
                for slot, v in case.inputs.items():
                    if isinstance(v, SelectedRows):
                        cast[slot] = SelectedRows(v.rows, np.asarray(v.values).astype(dtype), v.height)
                    else:
                        v = np.asarray(v)
                        cast[slot] = v.astype(dtype) if v.dtype.kind == "f" else v.copy()
                return cast

            _calls(results, record, direct, registry.get(case.op), f"update|{i}|{case.id}|{dtype}", ins, case.attrs)


def _calls(results, record, direct, opdef, key, ins, extra):
    from pe_cli.kernels.context import KernelContext

    for told in ("none", "in_place"):
        given = ins()
        attrs = dict(opdef.default_attrs(), **extra)
        ctx = KernelContext(update_in_place=told == "in_place")
        record(results, f"{key}|{told}", lambda: direct(opdef, given, attrs, ctx))
        record(results, f"{key}|{told}|after", lambda: given)


def adam_updates(results, record, direct):
    """adam through its CPU kernel: float16/32/64, a large array, epsilon_scaled; a row-sparse Grad with
    lazy_mode (over Param, or over outputs that are other variables), without it (Beta1PowOut Beta1Pow's
    array, the next step's powers, or not), of no rows; told nothing or to update in place."""
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.ops import registry

    opdef = registry.get("adam")
    for dtype in ("float16", "float32", "float64"):
        for shape in [(5, 4), ((1 << 16) + 3,)]:
            for form in ("dense", "scaled", "lazy", "lazy_prior", "sparse", "sparse_next", "empty"):
                if form not in ("dense", "scaled") and len(shape) == 1:
                    continue

                def ins(dtype=dtype, shape=shape, form=form):
                    r = np.random.default_rng(zlib.crc32(repr((dtype, shape, form)).encode()))
                    values = {s: r.uniform(0, 1, shape).astype(dtype) for s in ("Param", "Moment1", "Moment2")}
                    values["Grad"] = r.uniform(-1, 1, shape).astype(dtype)
                    values["LearningRate"] = np.array([0.01], dtype)
                    values["Beta1Pow"], values["Beta2Pow"] = np.array([0.81], dtype), np.array([0.998], dtype)
                    if form in ("lazy", "lazy_prior", "sparse", "sparse_next", "empty"):
                        n = 0 if form == "empty" else 3
                        rows = np.array([3, 1, 3][:n], np.int64)
                        values["Grad"] = SelectedRows(rows, r.uniform(-1, 1, (n, 4)).astype(dtype), 5)
                    if form == "lazy_prior":
                        values.update({f"{s}Out": r.uniform(0, 1, shape).astype(dtype) for s in ("Param", "Moment1")})
                        values["Moment2Out"] = r.uniform(0, 1, shape).astype(dtype)
                    if form == "sparse_next":
                        values["Beta1PowOut"] = values["Beta1Pow"]
                    return values

                extra = {"lazy_mode": form.startswith("lazy"), "epsilon_scaled": form == "scaled"}
                _calls(results, record, direct, opdef, f"adam|{dtype}|{shape}|{form}", ins, extra)
