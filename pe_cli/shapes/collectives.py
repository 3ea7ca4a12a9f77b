"""Meta rules (shapes/structured.py) of the collective ops: Fluid's ring ops (ops/collective.py), Paddle 2.x's
(ops/ring_collectives.py) and c_embedding with its gradient. pe runs a collective op on a ring of one process only:
there its Out is X as it is (``Meta.aliases``: nothing allocated or computed), and its out-kernel refuses a ring of
several (the ``nranks`` attribute, or PADDLE_TRAINERS_NUM, which it reads from the environment when it runs: the
communicator pe has, never kept in a Meta), marked ``Structured(python=True)``. For a ``nranks`` of several the rule
gives Paddle's shapes for that many ranks (the gathers' and concat's rows or last dim times nranks, the scatters' and
split's divided; -1 where they do not divide), "ring", no buffer: the out-kernel refuses before anything is written.
The waits' Out is the list of X's values; the set-up ops' Out the ring's id, an empty uint8 array."""

import numpy as np

from .dependencies import _spec
from .structured import Meta


def _ranked(shape, times, axis):
    """Out's shape for a ring of ``times`` ranks (negative: X's dim divided by -times) along ``axis``."""
    shape = list(shape)
    if shape:
        n = shape[axis]
        shape[axis] = n * times if times > 0 else (n // -times if n % -times == 0 else -1)
    return tuple(shape)


def _ring(slot, times=0, axis=0):
    """The rule of a ring op reading ``slot`` (X or x): Out is X as it is on a ring of one (nranks 0 or 1, or no
    nranks); ``times``: how nranks scales ``axis`` of Out (1: a gather, -1: a scatter, 0: it does not)."""
    out = "Out" if slot == "X" else "out"

    def meta(attrs, ins, facts):
        spec, nranks = _spec(ins[slot]), attrs.get("nranks", 1)
        if nranks in (0, 1) or not times or spec[0] is None:
            return Meta({out: spec}, "ring", aliases={out: slot})
        return Meta({out: (_ranked(spec[0], times * nranks, axis), spec[1])}, "ring", fresh=True)

    meta.__name__ = meta.__qualname__ = f"ring_{slot}_meta"
    return meta


ring_x_meta = _ring("X")  # (the reductions, broadcasts, identities, alltoall, barrier, the stream syncs)
ring_small_x_meta = _ring("x")  # (all_reduce, reduce, all_to_all)
RANKED = {  # op type -> its rule, where nranks shapes Out (Paddle's InferShape of each)
    "c_allgather": _ring("X", 1),
    "c_reducescatter": _ring("X", -1),
    "c_concat": _ring("X", 1, -1),
    "c_split": _ring("X", -1, -1),
    "c_scatter": _ring("X", -1),
    "all_gather": _ring("x", 1),
    "reduce_scatter": _ring("x", -1),
}


def ring_wait_meta(attrs, ins, facts):
    """c_wait_comm, c_wait_compute: Out[i] is X[i] as it is (a new list of them: ``fresh``), "ring"."""
    return Meta({"Out": [_spec(x) for x in ins["X"]]}, "ring", fresh=True)


def ring_setup_meta(attrs, ins, facts):
    """c_gen_nccl_id, c_comm_init, c_comm_init_all: the ring's id, an empty uint8 array, "ring"."""
    return Meta({"Out": ((0,), np.dtype(np.uint8))}, "ring")


def c_embedding_meta(attrs, ins, facts):
    """Out: a row of W per id (Ids' shape, then W's row), W's dtype, "lookup"."""
    w, ids = ins["W"], ins["Ids"]
    return Meta({"Out": (tuple(ids.shape) + tuple(w.shape[1:]), w.dtype)}, "lookup")


def c_embedding_grad_meta(attrs, ins, facts):
    """W@GRAD: W's shape, Out@GRAD's dtype, "scatter_add"."""
    return Meta({"W@GRAD": (tuple(ins["W"].shape), ins["Out@GRAD"].dtype)}, "scatter_add")


def ring_any_meta(attrs, ins, facts):
    """The rule of the ring kernel by name CUDA's run on the host (kernels/cuda/*collectives.py): X's or x's."""
    return (ring_x_meta if "X" in ins else ring_small_x_meta)(attrs, ins, facts)
