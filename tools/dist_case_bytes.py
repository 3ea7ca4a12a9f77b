"""The results of the parameter-server, parameter-service, reader and py_func ops (ops/distributed.py,
parameter_service.py, reader.py, py_func.py) for tools/op_case_bytes.py's ``dist`` family, called through their CPU
kernels (``OpDef.kernel``) and their executor steps (``OpDef.step_kernel``), each on inputs made afresh: split_ids,
merge_ids, ref_by_trainer_id and lookup_sparse_table on dtypes, empty and strided ids, row-sparse forms and every
attribute (the table's rows after the call too); py_func's outputs and LoDs; the readers' markers; and the refusals
of the ops whose services pe does not run (send and recv without tags, listen_and_serv, the gRPC and fleet
services), beside each output's bytes whether it is the input itself or shares its memory."""

import numpy as np

from host_case_bytes import _calls, _flat


def _run(results, record, op, key, make, attrs=None, ctx=None):
    """``make()``: the inputs, made afresh for each call (a table the op grows); the table W's rows after it too."""
    from pe_cli.kernels.context import KernelContext

    o, calls = _calls(op)
    full = dict(o.default_attrs(), **(attrs or {}))
    for name, call in calls:

        def run(call=call):
            c = (ctx or KernelContext)()
            ins = make()
            outs = _flat(call(dict(ins), dict(full), c), ins, c)
            w = ins.get("W")
            if hasattr(w, "rows"):
                outs["@W.rows"] = np.asarray(w.rows)
            return outs

        record(results, f"dist|{op}|{key}|{name}", run)


def _ids(dt, values, shape=(-1, 1)):
    return np.asarray(values, dtype=dt).reshape(shape)


def _ids_ops(results, record):
    from pe_cli.base.selected_rows import SelectedRows
    from pe_cli.kernels.context import KernelContext

    for dt in ("int64", "int32"):
        groups = {
            "two": [[0, 5, 2, 5], [7, 2, 3]],
            "one": [[4, 1, 4]],
            "empty": [[], [3]],
            "alone_empty": [[]],
        }
        for g, vals in groups.items():
            for n in (1, 2, 3, 5):

                def make(vals=vals):
                    return {"Ids": [_ids(dt, v) for v in vals]}

                def ctx(n=n):
                    return KernelContext(output_counts={"Out": n})

                _run(results, record, "split_ids", f"{dt}|{g}|{n}", make, ctx=ctx)

        def strided():
            return {"Ids": [_ids(dt, [9, 1, 9, 4, 6, 2, 8, 3], (-1, 2))[:, :1]]}

        _run(
            results, record, "split_ids", f"{dt}|strided", strided, ctx=lambda: KernelContext(output_counts={"Out": 2})
        )
    for vdt in ("float32", "float64", "int64"):
        for rows in ([3, 0, 7, 3], [], [5]):

            def sparse(rows=rows):
                v = (np.arange(len(rows) * 3).reshape(len(rows), 3) * 1.5).astype(vdt)
                return {"Ids": [SelectedRows(np.asarray(rows, np.int64), v, 10)]}

            for n in (1, 2, 3):
                ctx = lambda n=n: KernelContext(output_counts={"Out": n})  # noqa: E731
                _run(results, record, "split_ids", f"sr|{vdt}|{rows}|{n}", sparse, ctx=ctx)
    for dt in ("float32", "float64", "int32", "int64"):
        for w in (2, 1, 0):

            def make(w=w):
                x0 = (np.arange(2 * w).reshape(2, w) + 1).astype(dt)
                x1 = (np.arange(3 * w).reshape(3, w) * 3 - 4).astype(dt)
                return {
                    "Ids": [_ids("int64", [3, 0, 3]), _ids("int64", [5, 9]), _ids("int64", [])],
                    "Rows": [_ids("int64", [0, 3]), _ids("int64", [5, 9, 3])],
                    "X": [x0, x1],
                }

            _run(results, record, "merge_ids", f"{dt}|w{w}", make)

        def missing():
            return {"Ids": [_ids("int64", [1, 2])], "Rows": [_ids("int64", [1])], "X": [np.ones((1, 2), dt)]}

        _run(results, record, "merge_ids", f"{dt}|missing", missing)

        def fortran():
            x = np.asfortranarray((np.arange(12).reshape(4, 3) - 2).astype(dt))
            return {"Ids": [_ids("int64", [2, 2, 0])], "Rows": [_ids("int64", [0, 1, 2, 3])], "X": [x]}

        _run(results, record, "merge_ids", f"{dt}|fortran", fortran)
        for shape in ((2, 3), (), (0, 4), (5,)):
            for tdt in ("int64", "int32"):
                for t in (0, 1, 2, -1):

                    def make(shape=shape, t=t, tdt=tdt):
                        xs = [(np.arange(int(np.prod(shape))).reshape(shape) + k).astype(dt) for k in range(3)]
                        return {"X": xs, "TrainerId": np.array([t], tdt)}

                    _run(results, record, "ref_by_trainer_id", f"{dt}|{shape}|{tdt}|{t}", make)

        def strided_x():
            xs = [(np.arange(16).reshape(4, 4) * (k + 1)).astype(dt)[::2, 1::2] for k in range(2)]
            return {"X": xs, "TrainerId": np.array([1], "int64")}

        _run(results, record, "ref_by_trainer_id", f"{dt}|strided", strided_x)


def _lookup_sparse(results, record):
    from pe_cli.base.selected_rows import SelectedRows

    for dt in ("float32", "float64"):
        for cap in (6, 3, 0):
            for ids in ([2, 9, 2, 4], [9], [], [[1, 9], [2, 7]]):
                for attrs in (
                    {},
                    {"is_test": True},
                    {"auto_grown_table": False},
                    {"padding_idx": 2},
                    {"is_test": True, "auto_grown_table": False},
                ):

                    def make(cap=cap, ids=ids):
                        values = (np.arange(cap * 2).reshape(cap, 2) * 0.5 - 1).astype(dt)
                        rows = np.array([4, 2][: min(cap, 2)], np.int64)
                        return {"W": SelectedRows(rows, values, 100), "Ids": np.asarray(ids, np.int64).reshape(-1, 1)}

                    key = f"{dt}|{cap}|{ids}|{sorted(attrs.items())}"
                    _run(results, record, "lookup_sparse_table", key, make, attrs)

    def dense():
        return {"W": np.ones((3, 2)), "Ids": np.array([[0]], np.int64)}

    _run(results, record, "lookup_sparse_table", "dense", dense)


def _py_func(results, record):
    from pe_cli.kernels import py_callables
    from pe_cli.kernels.context import KernelContext

    def fwd(values, lods):
        return [v * 2 for v in values] + [np.asarray(repr(lods).encode())]

    def none(values, lods):
        return []

    f, n = py_callables.register(fwd), py_callables.register(none)
    for dt in ("float32", "float64", "int64"):
        for shape in ((2, 3), (), (0, 2)):

            def make(shape=shape):
                return {"X": [np.arange(int(np.prod(shape))).reshape(shape).astype(dt), np.ones(3, dt)]}

            for lod in (None, [[0, 1, 3]]):
                ctx = lambda lod=lod: KernelContext(lod={"X": [None, lod]} if lod else {})  # noqa: E731
                _run(results, record, "py_func", f"{dt}|{shape}|{lod}", make, {"forward_callable_id": f}, ctx)
            _run(results, record, "py_func", f"{dt}|{shape}|none", make, {"forward_callable_id": n})
    _run(results, record, "py_func", "noinput", lambda: {"X": []}, {"forward_callable_id": n})
    _run(results, record, "py_func", "unregistered", lambda: {"X": []}, {"forward_callable_id": 10**6})


def _services(results, record):
    from pe_cli.kernels.context import KernelContext

    x = np.ones((2, 3), np.float32)
    ids = np.array([[1], [2]], np.int64)
    for op, make in (
        ("pull_box_sparse", lambda: {"Ids": [ids]}),
        ("push_box_sparse", lambda: {"Ids": [ids], "Out@GRAD": [x]}),
        ("pull_sparse", lambda: {"Ids": [ids], "W": [x]}),
        ("pull_sparse_v2", lambda: {"Ids": [ids], "W": [x]}),
        ("push_sparse", lambda: {"Ids": [ids], "Out@GRAD": [x], "W": [x]}),
        ("push_sparse_v2", lambda: {"Ids": [ids], "Out@GRAD": [x], "W": [x]}),
        ("push_dense", lambda: {"Ids": [ids]}),
        ("distributed_lookup_table", lambda: {"Ids": [ids], "W": x}),
        ("prefetch", lambda: {"X": [ids]}),
        ("recv_save", dict),
        ("fl_listen_and_serv", lambda: {"X": [x]}),
        ("listen_and_serv", lambda: {"X": [x]}),
        ("send", lambda: {"X": [x]}),
        ("recv", lambda: {"X": []}),
        ("fetch_barrier", lambda: {"X": []}),
        ("fetch_barrier", lambda: {"X": [x]}),
    ):
        _run(results, record, op, "default", make)
    _run(results, record, "checkpoint_notify", "default", dict)
    _run(results, record, "checkpoint_notify", "noserver", dict, {"epmap": []})
    _run(results, record, "checkpoint_notify", "table", dict, {"lookup_table": "emb", "dir": "/d"})
    _run(results, record, "recv", "notags_shapes", lambda: {"X": []}, {"shapes": [[2, 3]], "epmap": ["a:1"]})
    _run(results, record, "create_py_reader", "default", dict)
    _run(results, record, "create_py_reader", "queue", lambda: {"blocking_queue": np.zeros(0, np.int32)})
    for marker in (np.zeros((0,), np.int32), np.ones((2,), np.float32)):
        m = marker
        _run(results, record, "create_double_buffer_reader", f"{m.dtype}", lambda m=m: {"UnderlyingReader": m})
    _run(results, record, "read", "default", lambda: {"Reader": np.zeros((0,), np.int32)})
    _run(
        results,
        record,
        "read",
        "outs",
        lambda: {"Reader": np.zeros((0,), np.int32)},
        ctx=lambda: KernelContext(output_counts={"Out": 2}),
    )


def _arrays(results, record):
    """lod_tensor_to_array and array_to_lod_tensor over rank tables of lod_rank_table, dtypes and LoDs (a level
    below the ranked one too), the array made back into a tensor; an array of no tensor refused."""
    from pe_cli.base.tensor_array import TensorArray
    from pe_cli.kernels.context import KernelContext
    from pe_cli.ops import registry

    table_of = registry.get("lod_rank_table").kernel("cpu")
    to_array = registry.get("lod_tensor_to_array").kernel("cpu")
    for dt in ("float32", "float64", "int64"):
        for n, (rows, lod) in enumerate(
            [(9, [[0, 2, 7, 7, 9]]), (9, [[0, 1, 3], [0, 2, 5, 6, 9]]), (4, [[0, 1, 2, 3, 4]]), (0, [[0, 0]])]
        ):
            x = (np.arange(rows * 3).reshape(rows, 3) * 1.5 - 4).astype(dt)
            for level in range(len(lod)):
                table = table_of({"X": x}, {"level": level}, KernelContext(lod={"X": lod}))["Out"]
                key = f"{dt}|{n}|{level}"
                _run(
                    results,
                    record,
                    "lod_tensor_to_array",
                    key,
                    lambda x=x, table=table: {"X": x, "RankTable": table},
                    ctx=lambda lod=lod: KernelContext(lod={"X": lod}),
                )
                array = to_array({"X": x, "RankTable": table}, {}, KernelContext(lod={"X": lod}))["Out"]
                plain = TensorArray(list(array))  # (no LoDs: the rows' one gather)

                def back(array=array, table=table):
                    return {"X": TensorArray(list(array), list(array.lods)), "RankTable": table}

                _run(results, record, "array_to_lod_tensor", key, back)
                _run(
                    results,
                    record,
                    "array_to_lod_tensor",
                    key + "|plain",
                    lambda a=plain, t=table: {"X": a, "RankTable": t},
                )
        table = table_of({"X": np.zeros((2, 1))}, {"level": 0}, KernelContext(lod={"X": [[0, 2]]}))["Out"]
        _run(
            results,
            record,
            "array_to_lod_tensor",
            f"{dt}|none",
            lambda t=table: {"X": TensorArray([None]), "RankTable": t},
        )


def dist(results, record, direct=None):
    _arrays(results, record)
    _ids_ops(results, record)
    _lookup_sparse(results, record)
    _py_func(results, record)
    _services(results, record)
