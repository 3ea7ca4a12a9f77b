"""Where Fluid's environment puts a process (``cluster_from_env``): the roles of a cluster started on
their own (parameter servers, trainers), their endpoints in rank order, and this process's rank, or
None for a single process. The rendezvous (rendezvous.py) joins the processes it names."""

import socket
import threading
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


def _listed(env, name):
    """The endpoints ``env[name]`` lists (comma-separated), each checked (check_endpoint), none twice."""
    endpoints = [e.strip() for e in (env.get(name) or "").split(",") if e.strip()]
    for i, endpoint in enumerate(endpoints):
        check_endpoint(endpoint, name)
        if endpoint in endpoints[:i]:
            raise PeError(f"{name} lists {endpoint} twice: every role needs an endpoint of its own")
    return endpoints


def _count(env, names, least, what):
    """The whole number the first of ``names`` set in ``env`` holds (None when none is set); a
    one-line PeError for anything else or a number below ``least``."""
    for name in names:
        value = env.get(name, "").strip()
        if not value:
            continue
        if not value.isdigit() or int(value) < least:
            raise PeError(f"{name}={value!r}: give {what}, a whole number of {least} or more")
        return int(value)
    return None


def _pservers(env):
    """(the parameter servers' endpoints, the variable that named them)."""
    for name in ("PADDLE_PSERVER_ENDPOINTS", "PADDLE_PSERVERS_IP_PORT_LIST"):
        if env.get(name, "").strip():
            return _listed(env, name), name
    port = env.get("PADDLE_PORT", "").strip()
    if port and env.get("PADDLE_PSERVERS", "").strip():
        ips = [ip.strip() for ip in env["PADDLE_PSERVERS"].split(",") if ip.strip()]
        return _listed(
            {"PADDLE_PSERVERS": ",".join(f"{ip}:{port}" for ip in ips)}, "PADDLE_PSERVERS"
        ), "PADDLE_PSERVERS"
    return [], "PADDLE_PSERVER_ENDPOINTS"


def _current(env):
    current = env.get("PADDLE_CURRENT_ENDPOINT", "").strip()
    port = env.get("PADDLE_PORT", "").strip()
    if not current and env.get("POD_IP", "").strip() and port:
        current = f"{env['POD_IP'].strip()}:{port}"
    if current:
        check_endpoint(current, "PADDLE_CURRENT_ENDPOINT")
    return current


def cluster_from_env(env):
    """The Cluster Fluid's environment describes, or None for a single process (a trainer whose
    environment names no endpoint: single_process_note says so). Reads PADDLE_TRAINING_ROLE (or
    TRAINING_ROLE), PADDLE_PSERVER_ENDPOINTS (or PADDLE_PSERVERS_IP_PORT_LIST, or PADDLE_PSERVERS ips +
    PADDLE_PORT), PADDLE_CURRENT_ENDPOINT (or POD_IP + PADDLE_PORT), PADDLE_TRAINER_ID,
    PADDLE_TRAINERS_NUM (or PADDLE_TRAINERS) and PADDLE_TRAINER_ENDPOINTS, and checks them before any
    wait: ports 1 to 65535, no endpoint twice, counts of 1 or more (one-line PeErrors)."""
    role = (env.get("PADDLE_TRAINING_ROLE") or env.get("TRAINING_ROLE") or "TRAINER").upper()
    if role not in ("PSERVER", "TRAINER"):
        raise PeError(f"PADDLE_TRAINING_ROLE={role!r}: it must be PSERVER or TRAINER")
    (pservers, named), current = _pservers(env), _current(env)
    trainer_eps = _listed(env, "PADDLE_TRAINER_ENDPOINTS")
    both = sorted(set(pservers) & set(trainer_eps))
    if both:
        raise PeError(
            f"{both[0]} is both a parameter server's endpoint ({named}) and a trainer's "
            f"(PADDLE_TRAINER_ENDPOINTS): every role needs an endpoint of its own"
        )
    trainers = (
        _count(env, ("PADDLE_TRAINERS_NUM", "PADDLE_TRAINERS"), 1, "the number of trainers") or len(trainer_eps) or 1
    )
    trainer_id = _count(env, ("PADDLE_TRAINER_ID",), 0, "this trainer's index") or 0
    if pservers:
        names = [f"pserver {i}" for i in range(len(pservers))] + [f"trainer {i}" for i in range(trainers)]
        endpoints = pservers + (trainer_eps if len(trainer_eps) == trainers else ["?"] * trainers)
        if role == "PSERVER":
            if current not in pservers:
                raise PeError(
                    f"PADDLE_CURRENT_ENDPOINT={current!r} is not one of {named}="
                    f"{','.join(pservers)}: a parameter server's endpoint must be listed there"
                )
            rank = pservers.index(current)
        else:
            rank = len(pservers) + trainer_id
            if rank < len(endpoints) and endpoints[rank] == "?" and current:
                endpoints[rank] = current
    elif role == "PSERVER":
        raise PeError(
            "PADDLE_TRAINING_ROLE=PSERVER but PADDLE_PSERVER_ENDPOINTS is not set: it lists the "
            "parameter servers' ip:port, in order"
        )
    else:
        if trainer_eps and len(trainer_eps) != trainers:
            raise PeError(
                f"PADDLE_TRAINERS_NUM={trainers} but PADDLE_TRAINER_ENDPOINTS lists {len(trainer_eps)} "
                f"endpoint(s): collective mode needs one ip:port per trainer, trainer 0's first"
            )
        names, endpoints, rank = [f"trainer {i}" for i in range(trainers)], trainer_eps or ["?"] * trainers, trainer_id
        if current and trainer_eps and trainer_id < trainers and current != trainer_eps[trainer_id]:
            raise PeError(
                f"PADDLE_CURRENT_ENDPOINT={current} but PADDLE_TRAINER_ENDPOINTS names "
                f"{trainer_eps[trainer_id]} as trainer {trainer_id} (PADDLE_TRAINER_ID)"
            )
    if not 0 <= rank < len(endpoints):
        raise PeError(f"PADDLE_TRAINER_ID={trainer_id} is not below PADDLE_TRAINERS_NUM={trainers}")
    if len(endpoints) < 2 or not pservers and not trainer_eps:
        return None
    return Cluster(tuple(endpoints), tuple(names), rank)


def single_process_note(env):
    """The one line ``pe fluid`` prints where Fluid's environment counts several trainers but names
    no endpoint (cluster_from_env returns None): the script runs as one process, as Paddle runs it
    (its readers, such as DistributedBatchSampler, still read PADDLE_TRAINERS_NUM). None otherwise."""
    trainers = _count(env, ("PADDLE_TRAINERS_NUM", "PADDLE_TRAINERS"), 1, "the number of trainers") or 1
    if trainers < 2 or cluster_from_env(env) is not None:
        return None
    trainer_id = _count(env, ("PADDLE_TRAINER_ID",), 0, "this trainer's index") or 0
    return (
        f"pe: PADDLE_TRAINERS_NUM={trainers} without PADDLE_TRAINER_ENDPOINTS or PADDLE_PSERVER_ENDPOINTS: "
        f"one process runs the script, as in Paddle (readers such as DistributedBatchSampler take trainer "
        f"{trainer_id}'s share of {trainers}); set the endpoints to start it as a role of a cluster"
    )


def host_port(endpoint, what):
    """(host, port) of ``endpoint`` (ip:port), checked (check_endpoint)."""
    check_endpoint(endpoint, what)
    host, _, port = endpoint.rpartition(":")
    return host, int(port)


def check_endpoint(endpoint, what):
    """A one-line PeError unless ``endpoint`` is host:port with a TCP port (1 to 65535)."""
    host, _, port = endpoint.rpartition(":")
    if not host or not port.isdigit():
        raise PeError(f"{what} endpoint {endpoint!r}: write it as ip:port")
    if not 1 <= int(port) <= 65535:
        raise PeError(f"{what} endpoint {endpoint}: port {int(port)} is not a TCP port (1 to 65535)")


def check_hosts(cluster, seconds):
    """A one-line PeError when the host of the root's endpoint or of this process's own does not
    resolve (within ``seconds``): checked before any wait, not found after it."""
    for rank in sorted({0, cluster.rank}):
        endpoint = cluster.endpoints[rank]
        if endpoint == "?":
            continue
        host, port = host_port(endpoint, cluster.names[rank])
        why = _resolve(host, port, seconds)
        if why:
            raise PeError(
                f"{cluster.who(rank)}: the host {host!r} does not resolve ({why}): give an IP address "
                f"or a host name this machine can resolve"
            )


def _resolve(host, port, seconds):
    """Why ``host`` does not resolve ('' when it does); the resolver runs at most ``seconds``."""
    said = []

    def look_up():
        try:
            socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            said.append("")
        except (OSError, UnicodeError) as e:
            said.append(getattr(e, "strerror", None) or str(e))

    thread = threading.Thread(target=look_up, daemon=True)
    thread.start()
    thread.join(seconds)
    return said[0] if said else f"no answer from the resolver within {seconds:g} s"
