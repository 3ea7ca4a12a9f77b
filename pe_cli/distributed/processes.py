"""Collectives between trainer processes, over MPI (mpi4py, loaded on first use; the ``mpi`` extra).

The multi-device graph sums a gradient over a process's devices first (``<kind>/collectives.py``),
then over the processes here. Values are host (numpy) arrays in contiguous buffers; several
gradients go in one buffer (a bucket). The sum runs in rank order on every rank (an ``Allgather`` of
the buffers, then rank 0's + rank 1's + ...), so every rank gets the same bits and a run repeats
bit for bit; MPI's own ``Allreduce`` may sum in any order.

A rank that fails reports its error (naming the rank) and calls ``MPI.Abort``, so the other ranks
stop instead of waiting for it in a collective; a rank that never reaches a collective the others
wait in is reported by the stall inspector (stall.py), and every rank stops.
"""

import contextlib
import importlib
import os
import sys
import time
import traceback

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from . import rank_guard
from .agreement import agree, layout
from .stall import StallWatch, report_and_abort

_GROUPS = {}
_WORLD = {}


def _mpi():
    try:
        return importlib.import_module("mpi4py.MPI")
    except ImportError as e:
        raise PeError(
            f"training on several processes needs mpi4py ({e}); install it with "
            f"pip install 'pe-cli[mpi]' (mpi4py and the mpich wheel) and start under mpiexec -n K"
        )


def world_size():
    """How many processes mpiexec started, from its environment (MPICH's PMI_SIZE, Open MPI's
    OMPI_COMM_WORLD_SIZE): 1 outside mpiexec. Reading it does not start MPI."""
    for name in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 1


def world():
    """The communicator of every process of the run: the one the rendezvous built (processes started
    on their own, rendezvous.py), else MPI's COMM_WORLD (processes one mpiexec started)."""
    join = _WORLD.pop("join", None)
    if join is not None and "comm" not in _WORLD:
        join()
    return _WORLD.get("comm") or _mpi().COMM_WORLD


def set_world(comm):
    """Makes ``comm`` the communicator of every process of the run (the rendezvous's)."""
    _WORLD["comm"] = comm


def join_on_first_use(join):
    """``join()`` (which calls set_world) runs when world() is first asked for; None forgets it."""
    _WORLD.pop("join", None)
    if join is not None:
        _WORLD["join"] = join


def world_rank():
    """This process's MPI rank (mpi4py needed)."""
    return world().Get_rank()


def group(num_trainers, trainer_id):
    """The process group of ``num_trainers`` trainers, this process being ``trainer_id``; a one-line
    PeError when mpiexec started another number of processes or this rank is another trainer."""
    key = (num_trainers, trainer_id)
    if key not in _GROUPS:
        comm = world()
        size, rank = comm.Get_size(), comm.Get_rank()
        if size != num_trainers:
            raise PeError(
                f"num_trainers={num_trainers} but mpiexec started {size} process(es): start with "
                f"mpiexec -n {num_trainers} (each process is one trainer)"
            )
        if rank != trainer_id:
            raise PeError(
                f"trainer_id={trainer_id} but this process is MPI rank {rank}: trainer ids are the "
                f"MPI ranks in order (trainer_id = rank)"
            )
        _GROUPS[key] = ProcessGroup(comm)
    return _GROUPS[key]


def pserver_roles(servers, trainers):
    """Parameter-server mode: ``(is_server, index, trainers_group)`` of this process among
    ``servers`` + ``trainers`` ranks (servers first). The trainers get a group of their own (for the
    means of their metrics); every rank must call this at the same point (an MPI Split)."""
    comm = world()
    size, rank = comm.Get_size(), comm.Get_rank()
    if size != servers + trainers:
        raise PeError(
            f"{servers} parameter server(s) and {trainers} trainer(s) need mpiexec -n {servers + trainers}, "
            f"but mpiexec started {size} process(es)"
        )
    is_server = rank < servers
    sub = comm.Split(0 if is_server else 1, rank)
    if is_server:
        return True, rank, None
    return False, rank - servers, ProcessGroup(sub)


def _host(array):
    """A host array; a row-sparse gradient densified (the processes sum dense buffers; docs/SPARSE.md)."""
    if isinstance(array, SelectedRows):
        return array.to_dense()
    array = array.copy_to_host() if hasattr(array, "copy_to_host") else array
    return np.ascontiguousarray(array)


def _every_row(dense):
    """A summed row-sparse gradient stays row-sparse, every row listed: the update ops then run their
    sparse form as in one process (Fluid 1.8.5's sparse Adam bias-corrects with the next step's powers),
    moving every row as a dense gradient would."""
    return SelectedRows(np.arange(dense.shape[0], dtype=np.int64), dense, dense.shape[0])


class ProcessGroup:
    """The trainers of one training run: ``rank`` of ``size``."""

    def __init__(self, comm, watch=True):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        _abort_on_uncaught(self)
        self.watch = StallWatch(_mpi(), comm, report_and_abort(comm)) if watch else None
        self.agreed = set()

    def _enter(self, label, host, names):
        if self.watch is not None:
            self.watch.enter(label)
        if label not in self.agreed:
            agree(self.comm, label, layout(host, names))
            self.agreed.add(label)

    def all_reduce(self, arrays, label="all_reduce", names=None):
        """The sums over the processes of ``arrays`` (host or device arrays of one dtype each), in rank
        order: one buffer per dtype, one Allgather each. Returns host arrays, in ``arrays`` order.
        ``label`` names the collective in a stall report, ``names`` the arrays where the ranks'
        programs differ (``agree``)."""
        host = [_host(a) for a in arrays]
        self._enter(label, host, names)
        out = [None] * len(host)
        by_dtype = {}
        for i, a in enumerate(host):
            by_dtype.setdefault(a.dtype, []).append(i)
        for dtype, idx in by_dtype.items():
            flat = np.concatenate([host[i].ravel() for i in idx]) if len(idx) > 1 else host[idx[0]].ravel()
            gathered = np.empty((self.size, flat.size), dtype)
            with _mpi_errors(label):
                self.comm.Allgather(flat, gathered)
            total = gathered[0].copy()
            for r in range(1, self.size):
                np.add(total, gathered[r], out=total)  # rank order: the same bits on every rank
            offset = 0
            for i in idx:
                n = host[i].size
                out[i] = total[offset : offset + n].reshape(host[i].shape)
                offset += n
        return [_every_row(o) if isinstance(a, SelectedRows) else o for a, o in zip(arrays, out)]

    def broadcast(self, arrays, root=0, label="broadcast", names=None):
        """``arrays`` as rank ``root`` holds them, on every rank (host arrays, same shapes on all)."""
        host = [_host(a) for a in arrays]
        self._enter(label, host, names)
        out = []
        for a in host:
            buf = a.copy() if self.rank != root else a
            with _mpi_errors(label):
                self.comm.Bcast(buf, root=root)
            out.append(buf)
        return out

    def abort(self, error):
        """Reports ``error`` as this rank's and stops every rank (MPI.Abort): the others would wait in
        the next collective for ever. Never returns: MPICH's Abort asks mpiexec to kill the ranks and
        may return before it does, so the process then ends at once rather than run on. Under pe's
        rank guard (pe_cli/distributed/rank_guard.py) the guard says it, and mpiexec stops the others."""
        rank_guard.fail(f"{type(error).__name__}: {error}")
        said = str(error).removesuffix("; stopping")  # a wait's line already says it stops
        sys.stderr.write(
            f"pe: rank {self.rank} of {self.size} failed: {type(error).__name__}: {said}; stopping every rank\n"
        )
        sys.stderr.flush()
        sys.stdout.flush()
        time.sleep(0.3)  # mpiexec forwards the ranks' output through pipes: let it read this first
        self.comm.Abort(1)
        os._exit(1)


@contextlib.contextmanager
def _mpi_errors(label):
    """mpi4py's error (MPICH's stack of internal calls, one per line) as one PeError naming the
    collective: the call that failed and the innermost reason."""
    try:
        yield
    except _mpi().Exception as e:
        raise PeError(f"{label}: MPI failed between the trainers: {mpi_cause(e)}") from None


def mpi_cause(error):
    """``MPI_Bcast_c(...) failed: message sizes do not match ...`` of MPICH's error stack
    (``func(line)....: text`` lines): the first text and the last."""
    texts = [line.split(": ", 1)[1].strip() for line in str(error).splitlines() if ": " in line]
    texts = [t for t in texts if t]
    return ": ".join(dict.fromkeys([texts[0], texts[-1]])) if texts else " ".join(str(error).split())


def _abort_on_uncaught(group):
    """An uncaught exception in any rank prints its traceback, then stops every rank."""
    previous = sys.excepthook
    if getattr(previous, "_pe_aborts", False):
        return

    def hook(kind, value, tb):
        traceback.print_exception(kind, value, tb)
        if issubclass(kind, Exception):
            group.abort(value)
        previous(kind, value, tb)

    hook._pe_aborts = True
    sys.excepthook = hook
