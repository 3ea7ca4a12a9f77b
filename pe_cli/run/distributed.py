"""``pe train`` on several trainer processes (``build_strategy.num_trainers: K`` under ``mpiexec -n K``,
collective mode; docs/DISTRIBUTED.md). Every rank builds the same programs and reads the same
global batches (the same seed), runs its share of each (rows split as devices split them), and
sums gradients with the others in the graph; the reported metrics are the means over the ranks.
Rank 0 alone writes the run directory: the other ranks write into a scratch directory removed at
the end."""

import shutil
import tempfile
from types import SimpleNamespace

import numpy as np

from ..base.errors import PeError
from ..distributed import processes
from ..executor.feed_split import split_sizes
from ..transpiler import (
    HashName,
    PServerPlan,
    RoundRobin,
    lr_ops,
    pserver_program,
    pserver_startup,
    rewrite_trainer_program,
    rewrite_trainer_startup,
)

_KEY = ("build_strategy", "num_trainers")


class Trainers:
    """This process's place among the trainers: ``rank`` of ``size`` (1 and 0 for one process). In
    pserver mode ``servers`` is P and ``server`` this process's server index (None on a trainer)."""

    def __init__(self, size=1, rank=0, group=None, servers=0, server=None):
        self.size, self.rank, self.group = size, rank, group
        self.servers, self.server = servers, server
        self.plan = None  # pserver mode: the transpiler's plan (run/distributed.py)

    @property
    def pserver_mode(self):
        return self.servers > 0

    @property
    def endpoints(self):
        """The servers' endpoints: names of MPI ranks 0..P-1 (nothing listens on them)."""
        return [f"127.0.0.1:{6170 + i}" for i in range(self.servers)]

    @property
    def writes(self):
        """This rank writes the run directory, metrics and checkpoints."""
        return self.rank == 0 and self.server is None

    def shard(self, batch):
        """This rank's rows of a global batch (a dict of arrays)."""
        if self.size == 1:
            return batch
        n = len(next(iter(batch.values())))
        sizes = split_sizes(n, self.size)
        start = sum(sizes[: self.rank])
        return {k: v[start : start + sizes[self.rank]] for k, v in batch.items()}

    def means(self, values):
        """The means over the ranks of ``values`` (a dict of floats): the global batch's metrics."""
        if self.size == 1 or not values:
            return values
        names = list(values)
        (total,) = self.group.all_reduce(
            [np.array([values[k] for k in names], dtype=np.float64)], label="the step's metrics"
        )
        return {k: float(v) / self.size for k, v in zip(names, total)}

    def agree(self, values, stop):
        """``means(values)``, and a stop (Ctrl-C) any rank asked for stops every rank after this step:
        a rank that went on alone would wait for the others in the next collective."""
        if self.size == 1:
            stop.settle(stop.requested)
            return values
        out = self.means({**values, "\0stop": float(stop.requested)})
        stop.settle(out.pop("\0stop") > 0)
        return out

    def scratch(self):
        """A directory for what a rank other than 0 would write (removed by ``cleanup``)."""
        self._scratch = tempfile.mkdtemp(prefix=f"pe-rank{self.rank}-")
        return self._scratch

    def cleanup(self):
        path = getattr(self, "_scratch", None)
        if path:
            shutil.rmtree(path, ignore_errors=True)

    def abort(self, error):
        """A failed rank stops every rank (the others wait for it in a collective)."""
        if self.group is not None:
            self.group.abort(error)


def trainers(cfg):
    """The trainers of this run from ``build_strategy.num_trainers`` and the MPI rank; a config error
    at that key when mpi4py is missing or mpiexec started another number of processes."""
    size = cfg.data["build_strategy"]["num_trainers"]
    if size > 1 and cfg.data["distributed"]["mode"] == "pserver":
        return _pserver_roles(cfg, size)
    if size == 1:
        if processes.world_size() > 1:
            raise cfg.doc.error(
                _KEY,
                f"mpiexec started {processes.world_size()} processes but num_trainers is 1",
                "set build_strategy.num_trainers to the process count (mpiexec -n K)",
            )
        return Trainers()
    try:
        rank = processes.world_rank()
        group = processes.group(size, rank)
    except PeError as e:
        raise cfg.doc.error(_KEY, str(e)) from None
    return Trainers(size, rank, group)


def _pserver_roles(cfg, size):
    servers = cfg.data["distributed"]["pservers"]
    if cfg.data["devices"] != 1:
        raise cfg.doc.error(
            ("devices",),
            "pserver mode runs one device per trainer",
            "set devices: 1, or use distributed.mode: collective",
        )
    try:
        is_server, index, group = processes.pserver_roles(servers, size)
    except PeError as e:
        raise cfg.doc.error(("distributed", "pservers"), str(e)) from None
    if is_server:
        return Trainers(size, -1, None, servers, index)
    return Trainers(size, index, group, servers)


def pserver_transpile(cfg, programs, trainers):
    """Pserver mode: the trainer's main and startup programs rewritten in place (send/recv); returns
    the transpiler's plan, from which a server takes its programs (pe_cli/transpiler/)."""
    d = cfg.data["distributed"]
    config = SimpleNamespace(
        split_method=RoundRobin if d["split_method"] == "round_robin" else HashName,
        min_block_size=d["min_block_size"],
        slice_var_up=d["slice_var_up"],
    )
    origin, origin_startup = programs.main.clone(), programs.startup.clone()
    plan = PServerPlan(origin, trainers.endpoints, trainers.size, max(trainers.rank, 0), d["sync"], config)
    plan.origin_startup, plan.lr_ops = origin_startup, lr_ops(origin.global_block())
    if trainers.server is None:
        rewrite_trainer_program(programs.main, plan)
        rewrite_trainer_startup(programs.startup, plan)
    return plan


def serve(plan, trainers, exe):
    """Runs this server: its startup, then its program until every trainer has finished."""
    endpoint = trainers.endpoints[trainers.server]
    program = pserver_program(plan, endpoint, plan.lr_ops)
    exe.run(pserver_startup(plan.origin_startup, program))
    exe.run(program)
