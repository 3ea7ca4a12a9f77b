"""That every trainer runs the same program, checked where it shows: before the first collective of
each kind (a gradient bucket's all-reduce, the broadcast of the parameters), every rank hands the
others the layout it is about to send (names, shapes, dtypes) as 16 bytes (a digest and a length).
Where they differ (a rank whose program has another layer, another width), MPI would fail inside
the collective with "message sizes do not match" and a stack of MPICH's internals, or sum
mismatched buffers; instead every rank raises one PeError naming the first rank that differs from
rank 0 and the first variable that differs. Under pe's rank guard that rank says it in one line and
every rank then ends at once, quietly (rank_guard.stopped): none is left for mpiexec to kill, so it
prints no banner. Later calls of a label already agreed cost nothing.

The layouts are exchanged as JSON text (never pickled), after the digests disagreed."""

import hashlib
import json
import sys

import numpy as np

from ..base.errors import PeError
from . import rank_guard


def layout(arrays, names=None):
    """[[name, shape, dtype], ...] of the host ``arrays`` (names #0, #1, ... where none are given)."""
    names = list(names) if names is not None else [f"#{i}" for i in range(len(arrays))]
    return [[n, list(a.shape), a.dtype.name] for n, a in zip(names, arrays)]


def agree(comm, label, mine):
    """Returns when every rank of ``comm`` calls the collective ``label`` with the layout ``mine``;
    else a PeError (on every rank) naming the first rank whose layout differs from rank 0's."""
    text = json.dumps([label, mine]).encode()
    digest = int.from_bytes(hashlib.blake2b(text, digest_size=7).digest(), "little")
    everyone = np.empty((comm.Get_size(), 2), np.int64)
    comm.Allgather(np.array([digest, len(text)], np.int64), everyone)
    if (everyone == everyone[0]).all():
        return
    counts = [int(n) for n in everyone[:, 1]]
    gathered = np.empty(sum(counts), np.uint8)
    from mpi4py import MPI

    comm.Allgatherv(np.frombuffer(text, np.uint8), [gathered, counts, np.cumsum([0] + counts[:-1]).tolist(), MPI.BYTE])
    texts, at = [], 0
    for n in counts:
        texts.append(json.loads(bytes(gathered[at : at + n]).decode()))
        at += n
    rank = next(r for r in range(1, len(texts)) if texts[r] != texts[0])
    message = (
        f"the trainers' programs differ: {difference(texts[0], texts[rank], rank)}; every trainer must "
        f"build the same program (the same layers, sizes and order)"
    )
    if rank_guard.under_guard():  # rank says it, then every rank ends at once, quietly (no guard's line,
        if comm.Get_rank() == rank:  # no rank left for mpiexec to kill, so no banner of its own)
            sys.stderr.write(f"pe: trainer rank {rank} of {len(texts)} failed: {message}; stopping every rank\n")
            sys.stderr.flush()
        comm.Barrier()
        rank_guard.stopped()
    raise PeError(message)


def difference(first, other, rank):
    """Where rank ``rank``'s [label, layout] differs from rank 0's, in words."""
    (label0, vars0), (label, vars_) = first, other
    if label0 != label:
        return f"rank 0 is at {label0[:200]} where rank {rank} is at {label[:200]}"
    for i, (a, b) in enumerate(zip(vars0, vars_)):
        if a != b:
            return f"in {label[:200]}, rank 0 has '{a[0]}' {a[1]} {a[2]} where rank {rank} has '{b[0]}' {b[1]} {b[2]}"
    more, which = (vars0, 0) if len(vars0) > len(vars_) else (vars_, rank)
    return (
        f"in {label[:200]}, rank 0 has {len(vars0)} variables and rank {rank} {len(vars_)}; "
        f"rank {which} also has '{more[min(len(vars0), len(vars_))][0]}'"
    )
