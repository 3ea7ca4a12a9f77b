"""The results of the collective ops (ops/collective.py's Fluid ring ops, ops/ring_collectives.py's Paddle 2.x ones,
c_embedding and its gradient) for tools/op_case_bytes.py's ``collectives`` family, called through their CPU kernels
(``OpDef.kernel``) and their executor steps (``OpDef.step_kernel``): dtypes, 0-D, empty, Fortran-ordered and strided
values, each attribute's forms (nranks 0, 1, 2; ring_id), PADDLE_TRAINERS_NUM unset, 1, 2 and blank, the refusals;
beside each output's bytes whether it is the input itself or shares its memory (host_case_bytes.py's ``_flat``)."""

import os

import numpy as np

from host_case_bytes import _run, _x
from matrix_case_bytes import _values

_FLUID = ("c_allreduce_sum", "c_allreduce_max", "c_allreduce_min", "c_allreduce_prod", "c_broadcast", "c_allgather")
_FLUID += ("c_reducescatter", "c_sync_calc_stream", "c_sync_comm_stream", "allreduce", "broadcast")
_BIG = ("c_reduce_sum", "c_reduce_max", "c_reduce_min", "c_reduce_prod", "c_identity", "mp_allreduce_sum")
_BIG += ("c_concat", "c_split", "c_scatter", "alltoall", "barrier")
_SMALL = ("all_reduce", "reduce", "all_gather", "all_to_all", "reduce_scatter")
_SETUP = ("c_gen_nccl_id", "c_comm_init", "c_comm_init_all")
_ENVS = (None, "1", "2", " ", "")


def _with_env(value, fn):
    old = os.environ.pop("PADDLE_TRAINERS_NUM", None)
    if value is not None:
        os.environ["PADDLE_TRAINERS_NUM"] = value
    try:
        fn()
    finally:
        os.environ.pop("PADDLE_TRAINERS_NUM", None)
        if old is not None:
            os.environ["PADDLE_TRAINERS_NUM"] = old


def _rings(results, record, env):
    for dt in ("float32", "float64", "float16", "int32", "int64", "bool"):
        for shape in ((3, 4), (), (0, 3), (5,)):
            forms = {"c": _x(f"coll|{dt}|{shape}", shape, dt)}
            if len(shape) == 2 and shape[0]:
                forms.update(fortran=np.asfortranarray(forms["c"]), strided=_x(f"coll|{dt}|w", (3, 8), dt)[:, ::2])
            for form, x in forms.items():
                k = f"{env}|{dt}|{shape}|{form}"
                for op in _FLUID + _BIG:
                    for attrs in ({}, {"nranks": 0}, {"nranks": 2}, {"ring_id": 3}):
                        _run(results, record, op, f"{k}|{sorted(attrs.items())}", {"X": x}, attrs)
                for op in _SMALL:
                    for attrs in ({}, {"nranks": 0}, {"nranks": 2}):
                        _run(results, record, op, f"{k}|{sorted(attrs.items())}", {"x": x}, attrs)
                for op in ("c_wait_comm", "c_wait_compute"):
                    _run(results, record, op, k, {"X": [x, forms["c"]]})
                    _run(results, record, op, k + "|one", {"X": [x]})
    for op in _SETUP:
        for attrs in ({}, {"nranks": 2}, {"nranks": 1}):
            ins = {"X": [_x("coll|id", (0,), "uint8")]} if op == "c_comm_init" else {}
            _run(results, record, op, f"{env}|{sorted(attrs.items())}", ins, attrs)
    for op in ("c_wait_comm", "c_wait_compute"):
        _run(results, record, op, f"{env}|none", {"X": []})


def _embeddings(results, record):
    for wdt in ("float32", "float64"):
        for form in ("c", "fortran", "strided"):
            w = _values(f"emb|{wdt}", (6, 3), wdt)
            if form == "fortran":
                w = np.asfortranarray(w)
            elif form == "strided":
                w = _values(f"emb|{wdt}|w", (6, 6), wdt)[:, ::2]
            for idt in ("int32", "int64"):
                for ids_shape, ids in (
                    ("row", np.array([0, 3, 5, 9, 12, -1, 7])),
                    ("grid", np.array([[2, 4], [8, 10], [11, 0]])),
                    ("empty", np.zeros((0,), np.int64)),
                    ("empty2", np.zeros((2, 0), np.int64)),
                ):
                    ids = ids.astype(idt)
                    for start in (0, 4, 6, 20, -2):
                        k = f"{wdt}|{form}|{idt}|{ids_shape}|{start}"
                        attrs = {"start_index": start, "vocab_size": 16}
                        _run(results, record, "c_embedding", k, {"W": w, "Ids": ids}, attrs)
                        for gdt in (wdt, "float32"):
                            d = _values(f"emb|d|{k}|{gdt}", ids.shape + (3,), gdt)
                            ins = {"W": w, "Ids": ids, "Out@GRAD": d}
                            _run(results, record, "c_embedding_grad", f"{k}|{gdt}", ins, attrs)


def collectives(results, record, direct=None):
    for env in _ENVS:
        _with_env(env, lambda env=env: _rings(results, record, env))
    _embeddings(results, record)
