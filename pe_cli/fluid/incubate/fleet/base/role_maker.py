"""``paddle.fluid.incubate.fleet.base.role_maker``: who this process is in a fleet job (Fluid 1.8).

A role maker says whether the process is a worker (trainer) or a parameter server, its index, and
the endpoints of both; ``fleet.init(role_maker)`` takes one. ``PaddleCloudRoleMaker`` reads the
environment Fluid's launchers set (``pe launch`` sets it too), ``UserDefinedRoleMaker`` and
``UserDefinedCollectiveRoleMaker`` take the facts as arguments, ``MPISymetricRoleMaker`` makes every
even MPI rank a server and every odd one a worker, ``GeneralRoleMaker`` reads the environment of
Fluid's GeneralRoleMaker.

The barriers and gathers (``barrier_worker``, ``barrier_all``, ``all_gather``, ``all_reduce_worker``)
run over MPI between the job's processes (world.py: servers are ranks 0..P-1, worker i rank P + i;
Fluid uses Gloo for them). pe's processes exchange everything over MPI, so the endpoints name and
order the roles; nothing listens on them.
"""
import os
import socket

import numpy as np

from .....base.errors import ArgumentTypeError, ArgumentValueError, PeError
from .world import group, reduce_op, world

__all__ = ["Role", "RoleMakerBase", "MPISymetricRoleMaker", "UserDefinedRoleMaker",
           "UserDefinedCollectiveRoleMaker", "PaddleCloudRoleMaker", "GeneralRoleMaker"]


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
    raise EnvironmentMissing(f"{what}: the environment variable {name}{also} is not set; Fluid's launchers "
                             f"(and pe launch) set it, see docs/DISTRIBUTED.md")


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
        return (f"role: {self._role}, current_id: {self._current_id}, worker_endpoints: "
                f"{self._worker_endpoints}, server_endpoints: {self._server_endpoints}")

    # -- the job's processes as MPI ranks (world.py) --------------------------------------------
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
        op = reduce_op(mode)
        comm = group(self._worker_ranks(), "workers")
        total = np.asarray(comm.allreduce(np.asarray(input), op=op))
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
            self._pserver_rand_port = 60001 + self._server_num() % 4000   # the same on every node
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
        total = np.asarray(group(self._members(1), "workers").allreduce(np.asarray(input), op=reduce_op(mode)))
        output[:len(total)] = total

    def all_gather(self, input):
        if not self._role_is_generated:
            self.generate_role()
        return self._all_gather(input)


class _EnvRoleMaker(RoleMakerBase):
    """The role makers that answer from facts known after ``generate_role``."""

    def get_trainer_endpoints(self):
        self._generated()
        return self._worker_endpoints

    def get_pserver_endpoints(self):
        self._generated()
        return self._server_endpoints

    def is_worker(self):
        self._generated()
        return self._role == Role.WORKER

    def is_server(self):
        self._generated()
        return self._role == Role.SERVER

    def is_first_worker(self):
        self._generated()
        return self._role == Role.WORKER and self._current_id == 0

    def worker_index(self):
        self._generated()
        return self._current_id

    def server_index(self):
        self._generated()
        return self._current_id

    def worker_num(self):
        self._generated()
        return self._trainers_num

    def _server_role(self, eplist, what):
        """(current_id, endpoint) of this server: PADDLE_PSERVER_ID, else POD_IP:PADDLE_PORT (Fluid's
        launchers), else PADDLE_CURRENT_ENDPOINT (pe launch's)."""
        if os.environ.get("PADDLE_PSERVER_ID") is not None:
            current = int(os.environ["PADDLE_PSERVER_ID"])
            if not 0 <= current < len(eplist):
                raise ValueError(f"{what}: PADDLE_PSERVER_ID={current} is not an index of the "
                                 f"{len(eplist)} server endpoints")
            return current, eplist[current]
        if "POD_IP" in os.environ and "PADDLE_PORT" in os.environ:
            endpoint = f"{os.environ['POD_IP']}:{os.environ['PADDLE_PORT']}"
        else:
            endpoint = _env("PADDLE_CURRENT_ENDPOINT", what=what + " (a server: POD_IP and PADDLE_PORT,")
        if endpoint not in eplist:
            raise ValueError(f"{what}: this server's endpoint {endpoint} is not one of the server endpoints "
                             f"{','.join(eplist)} (PADDLE_PSERVERS_IP_PORT_LIST)")
        return eplist.index(endpoint), endpoint


class PaddleCloudRoleMaker(_EnvRoleMaker):
    """The role from the environment. Parameter-server mode: PADDLE_PSERVERS_IP_PORT_LIST (or
    PADDLE_PSERVER_ENDPOINTS), PADDLE_TRAINERS_NUM, TRAINING_ROLE (or PADDLE_TRAINING_ROLE:
    TRAINER or PSERVER), PADDLE_TRAINER_ID for a trainer, POD_IP and PADDLE_PORT (or
    PADDLE_CURRENT_ENDPOINT) for a server. Collective mode (``is_collective=True``):
    PADDLE_TRAINER_ID, PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT."""

    def __init__(self, is_collective=False):
        super().__init__()
        self._is_collective = is_collective

    def generate_role(self):
        if self._role_is_generated:
            return
        if self._is_collective:
            self._collective_role()
        else:
            self._pserver_role()
        self._role_is_generated = True

    def _pserver_role(self):
        what = "PaddleCloudRoleMaker"
        eplist = _endpoint_list(_env("PADDLE_PSERVERS_IP_PORT_LIST", "PADDLE_PSERVER_ENDPOINTS"))
        trainers_num = int(_env("PADDLE_TRAINERS_NUM"))
        training_role = _env("TRAINING_ROLE", "PADDLE_TRAINING_ROLE")
        if training_role not in ("TRAINER", "PSERVER"):
            raise ValueError(f"{what}: TRAINING_ROLE must be PSERVER or TRAINER, got {training_role!r}")
        if training_role == "TRAINER":
            self._role, self._current_id = Role.WORKER, int(_env("PADDLE_TRAINER_ID"))
            if not 0 <= self._current_id < trainers_num:
                raise ValueError(f"{what}: PADDLE_TRAINER_ID={self._current_id} is not in [0, {trainers_num}) "
                                 f"for PADDLE_TRAINERS_NUM={trainers_num}")
        else:
            self._role = Role.SERVER
            self._current_id, self._current_endpoint = self._server_role(eplist, what)
        self._trainers_num, self._server_endpoints = trainers_num, eplist
        self._worker_endpoints = _endpoint_list(os.environ.get("PADDLE_TRAINER_ENDPOINTS", ""))

    def _collective_role(self):
        self._current_id = int(os.getenv("PADDLE_TRAINER_ID", "0"))
        self._training_role = os.getenv("PADDLE_TRAINING_ROLE", "TRAINER")
        assert self._training_role == "TRAINER", "collective mode: every process is a TRAINER"
        self._worker_endpoints = _endpoint_list(_env("PADDLE_TRAINER_ENDPOINTS"))
        self._current_endpoint = os.getenv("PADDLE_CURRENT_ENDPOINT")
        self._trainers_num = len(self._worker_endpoints)
        self._role = Role.WORKER
        ips = []
        for ep in self._worker_endpoints:
            ip = ep.split(":")[0].strip()
            if ip not in ips:
                ips.append(ip)
        self._node_ips = ips
        self._node_ip = (self._current_endpoint or self._worker_endpoints[self._current_id]).split(":")[0].strip()
        self._node_num = len(ips)
        self._node_id = ips.index(self._node_ip) if self._node_ip in ips else 0

    def _servers_first(self):
        return 0 if self._is_collective else len(self.get_pserver_endpoints())


class GeneralRoleMaker(_EnvRoleMaker):
    """Fluid's GeneralRoleMaker: PADDLE_PSERVERS_IP_PORT_LIST, PADDLE_TRAINER_ENDPOINTS (the number of
    trainers is their count), TRAINING_ROLE, PADDLE_TRAINER_ID or PADDLE_PSERVER_ID (or POD_IP and
    PADDLE_PORT). Its keyword arguments (``path``, ``hdfs_name``, ``http_ip_port``, timeouts) set up
    Fluid's Gloo store; pe's barriers run over MPI and keep them only as given."""

    def __init__(self, **kwargs):
        super().__init__()
        self._kwargs = dict(kwargs)
        self._hdfs_path = kwargs.get("path", "").rstrip("/")
        self._init_timeout_seconds = kwargs.get("init_timeout_seconds", 3600)
        self._run_timeout_seconds = kwargs.get("run_timeout_seconds", 9999999)

    def generate_role(self):
        if self._role_is_generated:
            return
        what = "GeneralRoleMaker"
        eplist = _endpoint_list(_env("PADDLE_PSERVERS_IP_PORT_LIST", what=what))
        training_role = _env("TRAINING_ROLE", "PADDLE_TRAINING_ROLE", what=what)
        workers = _endpoint_list(_env("PADDLE_TRAINER_ENDPOINTS", what=what))
        if training_role not in ("TRAINER", "PSERVER"):
            raise ValueError("TRAINING_ROLE must be PSERVER or TRAINER")
        if training_role == "TRAINER":
            self._role, self._current_id = Role.WORKER, int(_env("PADDLE_TRAINER_ID", what=what))
            self._cur_endpoint = workers[self._current_id]
        else:
            self._role = Role.SERVER
            self._current_id, self._cur_endpoint = self._server_role(eplist, what)
        self._trainers_num, self._server_endpoints, self._worker_endpoints = len(workers), eplist, workers
        self._role_is_generated = True

    def get_local_endpoint(self):
        self._generated()
        return self._cur_endpoint


def _check_endpoints(endpoints, name):
    if not isinstance(endpoints, list):
        raise ArgumentTypeError(f"{name} must be as string list")
    if len(endpoints) <= 0:
        raise ArgumentValueError(f"the length of {name} list must be greater than 0")
    for endpoint in endpoints:
        if not isinstance(endpoint, str):
            raise ArgumentTypeError(f"every element in {name} list must be as string")
    if len(endpoints) != len(set(endpoints)):
        raise ArgumentValueError(f"{name} can't have duplicate elements")
    return endpoints


def _check_index(value, name, below=None, why=""):
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{name} must be as int")
    if value < 0:
        raise ArgumentValueError(f"{name} must be greater than or equal to 0")
    if below is not None and value >= below:
        raise ArgumentValueError(f"{why}{name} must be less than or equal to {below - 1}")
    return value


class UserDefinedRoleMaker(_EnvRoleMaker):
    """The role given: ``current_id`` (this worker's or server's index), ``role`` (Role.WORKER or
    Role.SERVER), ``worker_num`` and ``server_endpoints`` (a list of 'ip:port')."""

    def __init__(self, current_id=0, role=Role.WORKER, worker_num=0, server_endpoints=None):
        super().__init__()
        self._server_endpoints = _check_endpoints(server_endpoints, "server_endpoints")
        if role not in (Role.WORKER, Role.SERVER):
            raise ArgumentTypeError("role must be as Role")
        self._role = role
        limit = len(server_endpoints) if role == Role.SERVER else None
        self._current_id = _check_index(current_id, "current_id", limit, "if role is Role.SERVER, ")
        if not isinstance(worker_num, int) or isinstance(worker_num, bool):
            raise ArgumentTypeError("worker_num must be as int")
        if worker_num <= 0:
            raise ArgumentValueError("worker_num must be greater than 0")
        self._trainers_num = worker_num
        self._role_is_generated = True


class UserDefinedCollectiveRoleMaker(_EnvRoleMaker):
    """Collective mode, the role given: ``current_id`` (this worker's index) and
    ``worker_endpoints`` (every worker's 'ip:port', in order)."""

    def __init__(self, current_id=0, worker_endpoints=None):
        super().__init__()
        self._worker_endpoints = _check_endpoints(worker_endpoints, "worker_endpoints")
        self._current_id = _check_index(current_id, "current_id", len(worker_endpoints))
        self._trainers_num = len(worker_endpoints)
        self._role = Role.WORKER
        self._role_is_generated = True

    def _servers_first(self):
        return 0
