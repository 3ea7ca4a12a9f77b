"""Where Fluid's environment puts a process (``cluster_from_env``): the roles of a cluster started on
their own (parameter servers, trainers), their endpoints in rank order, and this process's rank, or
None for a single process. The rendezvous (rendezvous.py) joins the processes it names."""
from dataclasses import dataclass

from ..base.errors import PeError


@dataclass(frozen=True)
class Cluster:
    """Where this process stands: ``endpoints`` in rank order, ``names`` (``pserver 0``,
    ``trainer 1``) likewise; this process is ``rank``; rank 0 is the root."""
    endpoints: tuple
    names: tuple
    rank: int

    @property
    def size(self):
        return len(self.endpoints)

    def who(self, rank):
        """``trainer 1 at 10.0.0.2:6170`` (the name alone where the endpoint is not known)."""
        return self.names[rank] if self.endpoints[rank] == "?" else f"{self.names[rank]} at {self.endpoints[rank]}"


def _listed(value):
    return [e.strip() for e in (value or "").split(",") if e.strip()]


def _count(env, *names):
    for name in names:
        value = env.get(name, "").strip()
        if value.isdigit():
            return int(value)
    return None


def cluster_from_env(env):
    """The Cluster Fluid's environment describes, or None for a single process. Reads
    PADDLE_TRAINING_ROLE (or TRAINING_ROLE), PADDLE_PSERVER_ENDPOINTS (or PADDLE_PSERVERS_IP_PORT_LIST,
    or PADDLE_PSERVERS ips + PADDLE_PORT), PADDLE_CURRENT_ENDPOINT (or POD_IP + PADDLE_PORT),
    PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM (or PADDLE_TRAINERS) and PADDLE_TRAINER_ENDPOINTS."""
    role = (env.get("PADDLE_TRAINING_ROLE") or env.get("TRAINING_ROLE") or "TRAINER").upper()
    port = env.get("PADDLE_PORT", "").strip()
    pservers = _listed(env.get("PADDLE_PSERVER_ENDPOINTS") or env.get("PADDLE_PSERVERS_IP_PORT_LIST"))
    if not pservers and port and env.get("PADDLE_PSERVERS"):
        pservers = [f"{ip}:{port}" for ip in _listed(env["PADDLE_PSERVERS"])]
    current = env.get("PADDLE_CURRENT_ENDPOINT", "").strip()
    if not current and env.get("POD_IP") and port:
        current = f"{env['POD_IP'].strip()}:{port}"
    trainer_eps = _listed(env.get("PADDLE_TRAINER_ENDPOINTS"))
    trainers = _count(env, "PADDLE_TRAINERS_NUM", "PADDLE_TRAINERS") or len(trainer_eps) or 1
    trainer_id = _count(env, "PADDLE_TRAINER_ID") or 0
    if role not in ("PSERVER", "TRAINER"):
        raise PeError(f"PADDLE_TRAINING_ROLE={role!r}: it must be PSERVER or TRAINER")
    if pservers:
        names = [f"pserver {i}" for i in range(len(pservers))] + [f"trainer {i}" for i in range(trainers)]
        endpoints = pservers + (trainer_eps if len(trainer_eps) == trainers else ["?"] * trainers)
        if role == "PSERVER":
            if current not in pservers:
                raise PeError(f"PADDLE_CURRENT_ENDPOINT={current!r} is not one of PADDLE_PSERVER_ENDPOINTS="
                              f"{','.join(pservers)}: a parameter server's endpoint must be listed there")
            rank = pservers.index(current)
        else:
            rank = len(pservers) + trainer_id
            if endpoints[rank] == "?" and current:
                endpoints[rank] = current
    elif role == "PSERVER":
        raise PeError("PADDLE_TRAINING_ROLE=PSERVER but PADDLE_PSERVER_ENDPOINTS is not set: it lists the "
                      "parameter servers' ip:port, in order")
    else:
        if trainers > 1 and len(trainer_eps) != trainers:
            raise PeError(f"PADDLE_TRAINERS_NUM={trainers} but PADDLE_TRAINER_ENDPOINTS lists {len(trainer_eps)} "
                          f"endpoint(s): collective mode needs one ip:port per trainer, trainer 0's first")
        names, endpoints, rank = [f"trainer {i}" for i in range(trainers)], trainer_eps or ["?"], trainer_id
        if current and trainers > 1 and trainer_id < trainers and current != trainer_eps[trainer_id]:
            raise PeError(f"PADDLE_CURRENT_ENDPOINT={current} but PADDLE_TRAINER_ENDPOINTS names "
                          f"{trainer_eps[trainer_id]} as trainer {trainer_id} (PADDLE_TRAINER_ID)")
    if not 0 <= rank < len(endpoints):
        raise PeError(f"PADDLE_TRAINER_ID={trainer_id} is not below PADDLE_TRAINERS_NUM={trainers}")
    if len(endpoints) < 2:
        return None
    return Cluster(tuple(endpoints), tuple(names), rank)


def host_port(endpoint, what):
    host, _, port = endpoint.rpartition(":")
    if not host or not port.isdigit():
        raise PeError(f"{what} endpoint {endpoint!r}: write it as ip:port")
    return host, int(port)
