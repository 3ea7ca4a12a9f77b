"""The processes of a fleet job as MPI ranks, and the role makers' barriers and gathers over them.

Ranks follow pe's layout (docs/DISTRIBUTED.md): the P parameter servers are ranks 0..P-1 in the
order of their endpoints, worker i is rank P + i; in collective mode worker i is rank i. A group of
ranks (the workers, the servers, everyone) gets a communicator of its own (``Comm.Create_group``:
only its members take part, so a worker's barrier never waits on a server busy serving). A group
of one process needs no MPI at all.
"""

from .....base.errors import ArgumentValueError, PeError
from .....distributed import processes, rendezvous

_GROUPS = {}
_CANNOT_JOIN = {}


def world():
    """The communicator every role of the job is in: MPI's world under one mpiexec, or the one the
    rendezvous of roles started on their own built (distributed/rendezvous.py; joined on first use for
    a role given in code, see join)."""
    if _CANNOT_JOIN:
        raise PeError(_CANNOT_JOIN["why"])
    return processes.world()


def join(role_maker, what):
    """Roles started on their own whose role is given in code (``role_maker._fluid_environment()``:
    the Fluid environment it stands for, None where the environment itself gave it): they join
    each other through the rendezvous when they first talk (rendezvous.join_given); where they
    cannot (outside pe fluid and mpiexec), the fleet's first exchange says so in one line."""
    _CANNOT_JOIN.clear()
    why = rendezvous.join_given(role_maker._fluid_environment(), what)
    if why:
        _CANNOT_JOIN["why"] = why


class _Alone:
    """The group of this process alone: barriers return at once, gathers hold its own value."""

    def barrier(self):
        pass

    def allgather(self, value):
        return [value]


def group(ranks, what):
    """The communicator of ``ranks`` (this process among them); ``what`` names them in errors."""
    ranks = tuple(ranks)
    if len(ranks) == 1:
        return _Alone()
    if ranks not in _GROUPS:
        comm = world()
        if comm.Get_size() < max(ranks) + 1:
            raise PeError(
                f"fleet: the {what} are {len(ranks)} processes (MPI ranks {ranks[0]}..{ranks[-1]}), but "
                f"this process runs in a job of {comm.Get_size()}: start the roles with pe launch, or "
                f"mpiexec -n {max(ranks) + 1} (servers first), or each with pe fluid and Fluid's environment"
            )
        _GROUPS[ranks] = comm.Create_group(comm.Get_group().Incl(list(ranks)))
    return _GROUPS[ranks]


def all_reduce(comm, value, mode):
    """``value`` summed (or max, min: Fluid's all_reduce ``mode``) over the group ``comm``."""
    ops = {"sum": "SUM", "max": "MAX", "min": "MIN"}
    if mode not in ops:
        raise ArgumentValueError(f"unknown mode: {mode} (all_reduce takes 'sum', 'max' or 'min')")
    if isinstance(comm, _Alone):
        return value
    return comm.allreduce(value, op=getattr(processes._mpi(), ops[mode]))
