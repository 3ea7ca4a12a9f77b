"""CPU out-kernels of pe_cli/ops/ring_collectives.py (meta rules: shapes/collectives.py): a ring of one trainer (X as
it is, the Meta's alias), refused in one of several (the environment read on every call); c_embedding's slice
lookup and its gradient."""

import os

import numpy as np

from ...base.errors import PeError
from ...shapes import collectives as rules
from ..structured import adapter


def _one_process(attrs):
    trainers = os.environ.get("PADDLE_TRAINERS_NUM", "1").strip() or "1"
    nranks = attrs.get("nranks", 1)
    if nranks not in (0, 1) or trainers != "1":
        raise PeError(
            f"a collective op runs in a program of one process only (here nranks={nranks}, "
            f"PADDLE_TRAINERS_NUM={trainers}); let CompiledProgram or fleet all-reduce across devices and "
            f"trainers"
        )


def ring_out(ins, outs, attrs, meta):
    """Out (out) is X (x) as it is (the Meta's alias) on a ring of one; a ring of several refused."""
    _one_process(attrs)


def ring_wait_out(ins, outs, attrs, meta):
    """c_wait_comm, c_wait_compute: Out, the list of X's values, once the ring is one."""
    _one_process(attrs)
    outs["Out"] = list(ins["X"])


def _local(ins, attrs):
    w, ids = ins["W"], np.asarray(ins["Ids"]).astype(np.int64)
    local = ids - int(attrs["start_index"])
    inside = (local >= 0) & (local < w.shape[0])
    return w, local, inside


def c_embedding_out(ins, outs, attrs, meta):
    """Out: W's row id - start_index for each id in this rank's slice, zeros for the others."""
    w, local, inside = _local(ins, attrs)
    out = outs["Out"]
    np.take(w, np.where(inside, local, 0), axis=0, out=out)
    out[~inside] = 0


def c_embedding_grad_out(ins, outs, attrs, meta):
    """W@GRAD: the sum of Out@GRAD's rows per row of this rank's slice, zeros elsewhere."""
    w, local, inside = _local(ins, attrs)
    d = ins["Out@GRAD"].reshape(-1, w.shape[1])
    dw = outs["W@GRAD"]
    dw.fill(0)
    np.add.at(dw, local.reshape(-1)[inside.reshape(-1)], d[inside.reshape(-1)])


ring_out.launches = ring_wait_out.launches = c_embedding_out.launches = c_embedding_grad_out.launches = None

# the kernels by name CUDA's kernels are given (kernels/cuda/ring_collectives.py's HOST_OPS): the adapters (the ring
# ops' with X's rule: on a ring of several the out-kernel refuses before any output is read)
ring_of_one = adapter(rules.ring_any_meta, ring_out, "ring_of_one")
ring_wait = adapter(rules.ring_wait_meta, ring_wait_out, "ring_wait")
c_embedding = adapter(rules.c_embedding_meta, c_embedding_out, "c_embedding")
c_embedding_grad = adapter(rules.c_embedding_grad_meta, c_embedding_grad_out, "c_embedding_grad")
