"""tools/op_case_bytes.py's dump of the gathers and scatters by index (``gather``): gather, gather_nd, scatter,
scatter_nd_add, index_select and their gradient ops, one_hot and one_hot_v2, through their CPU kernels on values of
float16/32/64 and int64 (C- and Fortran-ordered), indices of int32 and int64 of each shape (1-D, [N, 1], 0-D,
empty, repeated), an index out of range or negative (the one-line refusal), gather's axis (attribute and Axis
tensor), scatter's overwrite, one_hot's dtypes, depths and allow_out_of_range, X not ending in 1 (its refusal).
``record(results, key, fn)`` and ``direct(opdef, ins, attrs, ctx)`` are op_case_bytes.py's."""

import numpy as np

_DTYPES = ("float16", "float32", "float64", "int64")


def _values(rng, shape, dtype, order):
    x = (rng.uniform(-3, 3, size=shape) * (10 if dtype == "int64" else 1)).astype(dtype)
    return np.asfortranarray(x) if order == "f" else x


def _run(results, record, direct, key, opdef, ins, attrs):
    """Records the op's outputs; returns them (None where it refuses)."""
    record(results, key, lambda: direct(opdef, ins, attrs, None))
    try:
        return direct(opdef, ins, attrs, None)
    except Exception:
        return None


def _with_grad(results, record, direct, key, op, ins, attrs, grad_ins, rng):
    from pe_cli.ops import registry

    outs = _run(results, record, direct, key, registry.get(op), ins, attrs)
    if outs is None:
        return
    dout = rng.uniform(-1, 1, size=np.shape(outs["Out"])).astype(np.asarray(outs["Out"]).dtype)
    grad = registry.get(op + "_grad")
    record(results, key + "|grad", lambda: direct(grad, grad_ins(dout), attrs, None))


def _gathers(results, record, direct, rng):
    from pe_cli.ops import registry

    for dtype in _DTYPES:
        for order in ("c", "f"):
            for shape in [(5, 3), (6,), (4, 2, 3), (0, 3)]:
                x = _values(rng, shape, dtype, order)
                rows = max(shape[0], 1)
                for idx_shape, bad in [((4,), 0), ((4, 1), 0), ((), 0), ((0,), 0), ((3,), 1), ((3,), -1)]:
                    for idx_dtype in ("int32", "int64"):
                        index = rng.integers(0, rows, size=idx_shape).astype(idx_dtype)
                        if bad and index.size:
                            index.reshape(-1)[-1] = rows + 2 if bad > 0 else -1
                        for axis in (0, -1, 1) if len(shape) > 1 else (0,):
                            key = f"gather|gather|{dtype}|{order}|{shape}|{idx_shape}|{idx_dtype}|{bad}|{axis}"
                            attrs = dict(registry.get("gather").default_attrs(), axis=axis)
                            ins = {"X": x, "Index": index}
                            _with_grad(
                                results, record, direct, key, "gather", ins, attrs,
                                lambda d, ins=ins: dict(ins, **{"Out@GRAD": d}), rng,
                            )  # fmt: skip
                            if axis:
                                ins = {"X": x, "Index": index, "Axis": np.array([axis], idx_dtype)}
                                _with_grad(
                                    results, record, direct, key + "|tensor", "gather", ins, {},
                                    lambda d, ins=ins: dict(ins, **{"Out@GRAD": d}), rng,
                                )  # fmt: skip
                if shape[0] == 0:
                    continue
                for k in range(len(shape) + 2):
                    for bad in (0, 1):
                        index = np.stack([rng.integers(0, d, size=(2, 3)) for d in shape[:k]] + [np.zeros((2, 3))], -1)
                        index = index[..., :k].astype("int64" if k % 2 else "int32")
                        if bad and index.size:
                            index.reshape(-1)[-1] = 99
                        key = f"gather|gather_nd|{dtype}|{order}|{shape}|{k}|{bad}"
                        ins = {"X": x, "Index": index}
                        _with_grad(
                            results, record, direct, key, "gather_nd", ins, {},
                            lambda d, ins=ins: dict(ins, **{"Out@GRAD": d}), rng,
                        )  # fmt: skip


def _scatters(results, record, direct, rng):
    from pe_cli.ops import registry

    for dtype in _DTYPES:
        for order in ("c", "f"):
            for shape in [(5, 3), (6,), (4, 2, 3)]:
                x = _values(rng, shape, dtype, order)
                for ids in ([4, 0, 2], [1, 3, 1], [], [1, 7], [-1, 2]):
                    ids = np.array(ids, np.int64) % shape[0] if ids != [1, 7] and ids != [-1, 2] else np.array(ids)
                    upd = _values(rng, (len(ids),) + shape[1:], dtype, "c")
                    for overwrite in (True, False):
                        attrs = {"overwrite": overwrite}
                        key = f"gather|scatter|{dtype}|{order}|{shape}|{ids.tolist()}|{overwrite}"
                        ins = {"X": x, "Ids": ids.astype("int32"), "Updates": upd}
                        _with_grad(
                            results, record, direct, key, "scatter", ins, attrs,
                            lambda d, ins=ins: {"Ids": ins["Ids"], "Updates": upd, "Out@GRAD": d}, rng,
                        )  # fmt: skip
                for k in range(len(shape) + 1):
                    for bad in (0, 1):
                        index = np.stack([rng.integers(0, d, size=(4,)) for d in shape[:k]] + [np.zeros(4)], -1)
                        index = index[..., :k].astype("int64")
                        if bad and index.size:
                            index.reshape(-1)[0] = -1
                        upd = _values(rng, (4,) + shape[k:], dtype, "c")
                        key = f"gather|scatter_nd_add|{dtype}|{order}|{shape}|{k}|{bad}"
                        ins = {"X": x, "Index": index, "Updates": upd}
                        _with_grad(
                            results, record, direct, key, "scatter_nd_add", ins, {},
                            lambda d, ins=ins: {"Index": ins["Index"], "Updates": upd, "Out@GRAD": d}, rng,
                        )  # fmt: skip
                for dim in range(-len(shape), len(shape)):
                    for index in ([0, 1, 0], [[1], [0]], [], [0, 9]):
                        index = np.array(index, np.int64 if len(index) % 2 else np.int32)
                        key = f"gather|index_select|{dtype}|{order}|{shape}|{dim}|{index.tolist()}"
                        ins = {"X": x, "Index": index}
                        attrs = dict(registry.get("index_select").default_attrs(), dim=dim)
                        _with_grad(
                            results, record, direct, key, "index_select", ins, attrs,
                            lambda d, ins=ins: dict(ins, **{"Out@GRAD": d}), rng,
                        )  # fmt: skip


def _one_hots(results, record, direct, rng):
    from pe_cli.ops import registry

    for op in ("one_hot", "one_hot_v2"):
        opdef = registry.get(op)
        for shape in [(6, 1), (2, 3, 1), (0, 1), (4,), (), (3, 2)]:
            for depth in (1, 4, 40):
                for allow in (False, True):
                    for bad in (0, 1, -1):
                        ids = rng.integers(0, depth, size=shape)
                        if bad and ids.size:
                            ids.reshape(-1)[-1] = depth if bad > 0 else -1
                        for ids_dtype in ("int32", "int64"):
                            for dtype in ("float32", "float64", "int64", "bool", "float16"):
                                attrs = dict(opdef.default_attrs(), depth=depth, allow_out_of_range=allow, dtype=dtype)
                                key = f"gather|{op}|{shape}|{depth}|{allow}|{bad}|{ids_dtype}|{dtype}"
                                _run(results, record, direct, key, opdef, {"X": ids.astype(ids_dtype)}, attrs)


def gathering(results, record, direct, rng):
    """The dumps above."""
    _gathers(results, record, direct, rng)
    _scatters(results, record, direct, rng)
    _one_hots(results, record, direct, rng)
