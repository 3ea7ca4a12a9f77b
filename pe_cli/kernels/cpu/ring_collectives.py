"""Kernels of pe_cli/ops/ring_collectives.py: a ring of one trainer (X as it is), refused in one of several;
c_embedding's slice lookup."""

import os

import numpy as np

from ...base.errors import PeError


def _one_process(attrs):
    trainers = os.environ.get("PADDLE_TRAINERS_NUM", "1").strip() or "1"
    nranks = attrs.get("nranks", 1)
    if nranks not in (0, 1) or trainers != "1":
        raise PeError(
            f"a collective op runs in a program of one process only (here nranks={nranks}, "
            f"PADDLE_TRAINERS_NUM={trainers}); let CompiledProgram or fleet all-reduce across devices and "
            f"trainers"
        )


def ring_of_one(ins, attrs):
    _one_process(attrs)
    if "X" in ins:
        return {"Out": ins["X"]}
    return {"out": ins["x"]}


def ring_wait(ins, attrs):
    _one_process(attrs)
    return {"Out": list(ins["X"])}


def _local(ins, attrs):
    w, ids = ins["W"], np.asarray(ins["Ids"]).astype(np.int64)
    local = ids - int(attrs["start_index"])
    inside = (local >= 0) & (local < w.shape[0])
    return w, local, inside


def c_embedding(ins, attrs):
    w, local, inside = _local(ins, attrs)
    out = w[np.where(inside, local, 0)]
    out[~inside] = 0
    return {"Out": out}


def c_embedding_grad(ins, attrs):
    w, local, inside = _local(ins, attrs)
    d = ins["Out@GRAD"].reshape(-1, w.shape[1])
    dw = np.zeros(w.shape, d.dtype)
    np.add.at(dw, local.reshape(-1)[inside.reshape(-1)], d[inside.reshape(-1)])
    return {"W@GRAD": dw}
