"""Fluid 1.8's MPI role makers: ``MPIRoleMaker`` (over mpi4py's world) and ``MPISymetricRoleMaker``
(even ranks servers, odd ranks workers)."""

import socket

import numpy as np

from .role_base import Role, RoleMakerBase
from .world import all_reduce, group, world


class MPIRoleMaker(RoleMakerBase):
    """A role maker over mpi4py's world communicator (every process started by one mpiexec)."""

    def __init__(self):
        super().__init__()
        self._comm = world()
        self._ips = None
        self._ip = None

    def _get_rank(self):
        self._rank = self._comm.Get_rank()
        return self._rank

    def _get_size(self):
        self._size = self._comm.Get_size()
        return self._size

    def _get_ips(self):
        if not self._ips:
            self._ips = self._comm.allgather(self.get_local_ip())
        return self._ips

    def get_local_ip(self):
        self._ip = socket.gethostbyname(socket.gethostname())
        return self._ip

    def _finalize(self):
        """Fluid finalizes MPI here; pe leaves it to the process's exit."""


class MPISymetricRoleMaker(MPIRoleMaker):
    """Under one mpiexec of 2N processes: even ranks are servers, odd ranks workers (server i and
    worker i on the same node). pe's parameter-server exchange needs the servers at ranks 0..N-1,
    so this layout trains in collective mode only (its barriers and gathers work in both)."""

    def __init__(self):
        super().__init__()
        self._node_type = None
        self._proc_per_node = 2
        self._pserver_rand_port = 0

    def _check_role_generation(self):
        if not self._role_is_generated:
            raise NameError("generate_role() should be called first")
        return True

    def generate_role(self):
        if self._role_is_generated:
            raise Exception("You should check role generation first")
        ips = self._get_ips()
        self._worker_endpoints, self._server_endpoints = ips[1::2], ips[::2]
        self._node_type = 0 if self._get_rank() % self._proc_per_node == 0 else 1
        self._role = Role.SERVER if self._node_type == 0 else Role.WORKER
        self._current_id = self._rank // self._proc_per_node
        self._role_is_generated = True

    def is_worker(self):
        return self._check_role_generation() and self._node_type == 1

    def is_server(self):
        return self._check_role_generation() and self._node_type == 0

    def is_first_worker(self):
        return self._check_role_generation() and self.is_worker() and self.worker_index() == 0

    def worker_num(self):
        return self._get_size() // self._proc_per_node if self._check_role_generation() else 0

    def _server_num(self):
        if not self._role_is_generated:
            self.generate_role()
        return self._get_size() // self._proc_per_node

    def worker_index(self):
        self._check_role_generation()
        return self._rank // self._proc_per_node

    server_index = worker_index

    def get_pserver_endpoints(self):
        if self._pserver_rand_port <= 0:
            self._pserver_rand_port = 60001 + self._server_num() % 4000  # the same on every node
        return [f"{ip}:{self._pserver_rand_port}" for ip in self._server_endpoints]

    def _members(self, node_type):
        return range(node_type, self._get_size(), self._proc_per_node)

    def _barrier_worker(self):
        if self._check_role_generation() and self.is_worker():
            group(self._members(1), "workers").barrier()

    def _barrier_server(self):
        if self._check_role_generation() and self.is_server():
            group(self._members(0), "servers").barrier()

    def _barrier_all(self):
        self._comm.barrier()

    def _all_gather(self, obj):
        return self._comm.allgather(obj)

    def _worker_gather(self, obj):
        return group(self._members(1), "workers").allgather(obj) if self.is_worker() else None

    def _all_reduce(self, input, output, mode="sum"):
        total = np.asarray(all_reduce(group(self._members(1), "workers"), np.asarray(input), mode))
        output[: len(total)] = total

    def all_gather(self, input):
        if not self._role_is_generated:
            self.generate_role()
        return self._all_gather(input)
