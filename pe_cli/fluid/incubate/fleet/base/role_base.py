"""The base of Fluid 1.8's role makers (role_maker.py): ``Role``, ``RoleMakerBase`` and the
barriers and gathers every role maker has, over MPI between the job's processes (world.py: servers
are ranks 0..P-1, worker i rank P + i; Fluid uses Gloo for them)."""

import os

import numpy as np

from .....base.errors import PeError
from .world import all_reduce, group


class Role:
    WORKER = 1
    SERVER = 2
    XPU = 3


class EnvironmentMissing(PeError, KeyError):
    """A variable a role maker reads is not in the environment (a KeyError, as Fluid's lookup raises)."""

    def __str__(self):
        return self.args[0]


def _env(name, *fallbacks, what="PaddleCloudRoleMaker"):
    for key in (name,) + fallbacks:
        if key in os.environ:
            return os.environ[key]
    also = f" (or {', '.join(fallbacks)})" if fallbacks else ""
    raise EnvironmentMissing(
        f"{what}: the environment variable {name}{also} is not set; Fluid's launchers "
        f"(and pe launch) set it, see docs/DISTRIBUTED.md"
    )


def _endpoint_list(value):
    return [e.strip() for e in value.split(",") if e.strip()]


class RoleMakerBase:
    """The base of every role maker: the endpoints of the workers and servers, this process's role
    and index. Subclasses answer ``is_worker`` ... ``server_index``."""

    def __init__(self):
        self._worker_endpoints = []
        self._server_endpoints = []
        self._role_is_generated = False
        self._role = None
        self._current_id = -1

    def _generated(self):
        if not self._role_is_generated:
            self.generate_role()

    def generate_role(self):
        self._role_is_generated = True

    def is_worker(self):
        raise NotImplementedError("Please implement this method in child class")

    def is_server(self):
        raise NotImplementedError("Please implement this method in child class")

    def is_first_worker(self):
        raise NotImplementedError("Please implement this method in child class")

    def worker_num(self):
        raise NotImplementedError("Please implement this method in child class")

    def worker_index(self):
        raise NotImplementedError("Please implement this method in child class")

    def server_index(self):
        raise NotImplementedError("Please implement this method in child class")

    def role_id(self):
        return self.worker_index() if self.is_worker() else self.server_index()

    def server_num(self):
        return len(self.get_pserver_endpoints())

    def get_trainer_endpoints(self):
        return self._worker_endpoints

    def get_pserver_endpoints(self):
        return self._server_endpoints

    def to_string(self):
        return (
            f"role: {self._role}, current_id: {self._current_id}, worker_endpoints: "
            f"{self._worker_endpoints}, server_endpoints: {self._server_endpoints}"
        )

    # -- the job's processes as MPI ranks (world.py) --------------------------------------------
    def _fluid_environment(self):
        """The Fluid environment (PADDLE_TRAINING_ROLE, ...) a role given in code stands for, so that
        roles started on their own can join (world.join); None where the environment gave it."""
        return None

    def _servers_first(self):
        """How many ranks come before worker 0: the servers (none in collective mode)."""
        return len(self.get_pserver_endpoints())

    def _worker_ranks(self):
        first = self._servers_first()
        return range(first, first + int(self.worker_num()))

    def _all_ranks(self):
        return range(self._servers_first() + int(self.worker_num()))

    def _barrier_worker(self):
        self._generated()
        if self.is_worker():
            group(self._worker_ranks(), "workers").barrier()

    def _barrier_all(self):
        self._generated()
        group(self._all_ranks(), "workers and servers").barrier()

    def _all_gather(self, obj):
        """Every process's ``obj``, workers first then servers (Fluid's order)."""
        self._generated()
        values = group(self._all_ranks(), "workers and servers").allgather(obj)
        first = self._servers_first()
        return values[first:] + values[:first]

    def _worker_gather(self, obj):
        self._generated()
        if not self.is_worker():
            return None
        return group(self._worker_ranks(), "workers").allgather(obj)

    def _all_reduce(self, input, output, mode="sum"):
        total = np.asarray(all_reduce(group(self._worker_ranks(), "workers"), np.asarray(input), mode))
        for i in range(len(total)):
            output[i] = total[i]

    def all_gather(self, input):
        """``input`` of every worker and server, in a list (workers first)."""
        return self._all_gather(input)

    def all_reduce_worker(self, input, output, mode="sum"):
        """Sums (or max, min) the 1-D ``input`` over the workers into ``output``."""
        self._generated()
        if self.is_worker():
            self._all_reduce(input, output, mode)

    def barrier_worker(self):
        """Waits until every worker has reached it."""
        self._barrier_worker()

    def barrier_all(self):
        """Waits until every worker and server has reached it."""
        self._barrier_all()
