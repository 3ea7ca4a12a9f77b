"""``pe train`` on several trainer processes (``build_strategy.num_trainers: K`` under ``mpiexec -n K``,
collective mode; docs/DISTRIBUTED.md). Every rank builds the same programs and reads the same
global batches (the same seed), runs its share of each (rows split as devices split them), and
sums gradients with the others in the graph; the reported metrics are the means over the ranks.
Rank 0 alone writes the run directory: the other ranks write into a scratch directory removed at
the end."""
import shutil
import tempfile

import numpy as np

from ..errors import PeError
from ..executor.feed_split import split_sizes
from ..kernels import processes

_KEY = ("build_strategy", "num_trainers")


class Trainers:
    """This process's place among the trainers: ``rank`` of ``size`` (1 and 0 for one process)."""

    def __init__(self, size=1, rank=0, group=None):
        self.size, self.rank, self.group = size, rank, group

    @property
    def writes(self):
        """This rank writes the run directory, metrics and checkpoints."""
        return self.rank == 0

    def shard(self, batch):
        """This rank's rows of a global batch (a dict of arrays)."""
        if self.size == 1:
            return batch
        n = len(next(iter(batch.values())))
        sizes = split_sizes(n, self.size)
        start = sum(sizes[:self.rank])
        return {k: v[start:start + sizes[self.rank]] for k, v in batch.items()}

    def means(self, values):
        """The means over the ranks of ``values`` (a dict of floats): the global batch's metrics."""
        if self.size == 1 or not values:
            return values
        names = list(values)
        total, = self.group.all_reduce([np.array([values[k] for k in names], dtype=np.float64)],
                                       label="the step's metrics")
        return {k: float(v) / self.size for k, v in zip(names, total)}

    def agree(self, values, stop):
        """``means(values)``, and a stop (Ctrl-C) any rank asked for stops every rank after this step:
        a rank that went on alone would wait for the others in the next collective."""
        if self.size == 1:
            return values
        out = self.means({**values, "\0stop": float(stop.requested)})
        if out.pop("\0stop") > 0:
            stop.requested = True
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
    if size == 1:
        if processes.world_size() > 1:
            raise cfg.doc.error(_KEY, f"mpiexec started {processes.world_size()} processes but num_trainers is 1",
                                "set build_strategy.num_trainers to the process count (mpiexec -n K)")
        return Trainers()
    try:
        rank = processes.world_rank()
        group = processes.group(size, rank)
    except PeError as e:
        raise cfg.doc.error(_KEY, str(e)) from None
    return Trainers(size, rank, group)
