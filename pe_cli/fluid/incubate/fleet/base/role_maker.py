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
order the roles; only roles started on their own meet at one of them (the first server's, or
worker 0's in collective mode: distributed/rendezvous.py), the user-defined role makers' ones too
(``_fluid_environment``, world.join).
"""

import os

from .....base.errors import ArgumentTypeError, ArgumentValueError
from .role_base import EnvironmentMissing, Role, RoleMakerBase, _endpoint_list, _env  # noqa: F401
from .role_mpi import MPIRoleMaker, MPISymetricRoleMaker  # noqa: F401
from .world import group

__all__ = [
    "Role",
    "RoleMakerBase",
    "MPISymetricRoleMaker",
    "UserDefinedRoleMaker",
    "UserDefinedCollectiveRoleMaker",
    "PaddleCloudRoleMaker",
    "GeneralRoleMaker",
]


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

    def _worker_num(self):
        return self.worker_num()

    def _server_num(self):
        return len(self.get_pserver_endpoints())

    def _get_rank(self):
        """This process's place among every role, workers first (Fluid's order)."""
        return self.worker_index() if self.is_worker() else int(self.worker_num()) + self.server_index()

    def _get_size(self):
        return int(self.worker_num()) + self._server_num()

    def _barrier_server(self):
        if self.is_server():
            group(range(self._servers_first()), "servers").barrier()

    def _finalize(self):
        """Fluid finalizes its communicators here; pe leaves MPI to the process's exit."""

    def _server_role(self, eplist, what):
        """(current_id, endpoint) of this server: PADDLE_PSERVER_ID, else POD_IP:PADDLE_PORT (Fluid's
        launchers), else PADDLE_CURRENT_ENDPOINT (pe launch's)."""
        if os.environ.get("PADDLE_PSERVER_ID") is not None:
            current = int(os.environ["PADDLE_PSERVER_ID"])
            if not 0 <= current < len(eplist):
                raise ArgumentValueError(
                    f"{what}: PADDLE_PSERVER_ID={current} is not an index of the {len(eplist)} server endpoints"
                )
            return current, eplist[current]
        if "POD_IP" in os.environ and "PADDLE_PORT" in os.environ:
            endpoint = f"{os.environ['POD_IP']}:{os.environ['PADDLE_PORT']}"
        else:
            endpoint = _env("PADDLE_CURRENT_ENDPOINT", what=what + " (a server: POD_IP and PADDLE_PORT,")
        if endpoint not in eplist:
            raise ArgumentValueError(
                f"{what}: this server's endpoint {endpoint} is not one of the server endpoints "
                f"{','.join(eplist)} (PADDLE_PSERVERS_IP_PORT_LIST)"
            )
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
            raise ArgumentValueError(f"{what}: TRAINING_ROLE must be PSERVER or TRAINER, got {training_role!r}")
        if training_role == "TRAINER":
            self._role, self._current_id = Role.WORKER, int(_env("PADDLE_TRAINER_ID"))
            if not 0 <= self._current_id < trainers_num:
                raise ArgumentValueError(
                    f"{what}: PADDLE_TRAINER_ID={self._current_id} is not in [0, {trainers_num}) "
                    f"for PADDLE_TRAINERS_NUM={trainers_num}"
                )
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
            raise ArgumentValueError("TRAINING_ROLE must be PSERVER or TRAINER")
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

    def _fluid_environment(self):
        env = dict(
            PADDLE_PSERVER_ENDPOINTS=",".join(self._server_endpoints), PADDLE_TRAINERS_NUM=str(self._trainers_num)
        )
        if self._role == Role.SERVER:
            return dict(
                env, PADDLE_TRAINING_ROLE="PSERVER", PADDLE_CURRENT_ENDPOINT=self._server_endpoints[self._current_id]
            )
        return dict(env, PADDLE_TRAINING_ROLE="TRAINER", PADDLE_TRAINER_ID=str(self._current_id))


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

    def _fluid_environment(self):
        return dict(
            PADDLE_TRAINING_ROLE="TRAINER",
            PADDLE_TRAINER_ID=str(self._current_id),
            PADDLE_TRAINERS_NUM=str(self._trainers_num),
            PADDLE_TRAINER_ENDPOINTS=",".join(self._worker_endpoints),
            PADDLE_CURRENT_ENDPOINT=self._worker_endpoints[self._current_id],
        )
