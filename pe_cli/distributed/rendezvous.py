"""Rendezvous at the endpoints: processes started on their own (no shared mpiexec), each with Fluid's
environment, find each other and become one MPI communicator, ranked as one ``mpiexec`` would rank
them (parameter servers 0..P-1 in the order of their endpoints, trainer i is P + i; in collective
mode trainer i is rank i).

    from pe_cli.distributed import rendezvous
    comm = rendezvous.connect_from_env(os.environ)   # an mpi4py Intracomm; None for one process
    # from now on pe's collectives and parameter-server messages use ``comm`` (processes.world())

``pe fluid SCRIPT`` calls it before the script runs whenever the environment describes several
processes and no mpiexec started them together (``role_alone`` first runs the role again under an
mpiexec of its own, ``join_role`` then joins); ``cluster_from_env(env)`` says what it would join (or
None). Calling ``connect_from_env`` again returns the same communicator; outside any mpiexec it is
a one-line error (see below). A role given in code (fleet's UserDefinedRoleMaker) joins through
``join_given`` when it first talks to the others.

How: the root (the first parameter-server endpoint, or trainer 0's in collective mode) listens on
its endpoint's TCP port; every other process connects there and says who it is (``HELLO rank size
endpoint host pid``); the root answers at once how long it will wait for the others (``WAIT
seconds``), opens an MPI port (``MPI.Open_port``) and hands its name to rank 1, 2, ... in turn
(``PORT host pid name``); the processes joined so far ``Accept`` together, the newcomer
``Connect``s, and ``Intercomm.Merge`` (the newcomer high) gives it the next rank. Nothing but the
port name and the liveness lines below crosses these sockets: MPI carries the training.

MPICH 5.0's singleton init (a process MPI_Init'ed outside mpiexec) cannot Connect/Accept (MPICH
issue 7805: every singleton has the same process ids), so ``pe fluid`` runs each role under its own
``mpiexec -n 1``, which gives every role a job of its own (and pe's rank guard).

Liveness: the sockets stay open while the processes train (peer_watch.py). A process that fails
has its guard send ``FAIL <line>`` (the line names its rank, host and cause); a process whose
socket closes without ``BYE`` is lost. The root passes a failure on to the others, and every
process then prints that one line and ends (within a second or two). A role that never shows up
ends the others after ``PE_RENDEZVOUS_SECONDS`` (default 60) with one line naming its endpoint.

Bounds: the environment is checked before any wait (cluster_env.py: ports, duplicates, counts; the
hosts of the root's endpoint and this process's own resolve). Connecting to the root, the root's
first line (``WAIT``), each HELLO and the admission of every role take at most
``PE_RENDEZVOUS_SECONDS`` each; MPI's joins 30 s more (a watchdog). A root that accepts and then says
nothing (another program on that port) is one line saying so.
"""

import math
import os
import socket
import subprocess
import sys
import select
import threading
import time

from ..base.errors import PeError
from . import peer_watch, processes, rank_guard
from .admission import Admission
from .cluster_env import check_hosts, cluster_from_env, host_port, single_process_note

RANK_ENV, SIZE_ENV, ROLE_ENV = "PE_RENDEZVOUS_RANK", "PE_RENDEZVOUS_SIZE", "PE_RENDEZVOUS_ROLE"
_TRANSPORT_VARS = ("MPIR_CVAR_CH4_NETMOD", "FI_PROVIDER", "UCX_TLS")
_JOINED = {}
_COMMAND = {}
_MPI_SLACK_S = 30  # MPI's Accept/Connect of the roles, after the last one has come
_RESOLVE_S = 10  # the resolver's answer for a host, at most


def rank_env(cluster):
    """What a process's environment says of its place (the rank guard names it in its line)."""
    return {RANK_ENV: str(cluster.rank), SIZE_ENV: str(cluster.size), ROLE_ENV: cluster.who(cluster.rank)}


def joined():
    """The communicator connect_from_env built in this process, or None."""
    return _JOINED.get("comm")


def timeout_s(env=os.environ):
    value = env.get("PE_RENDEZVOUS_SECONDS", "60")
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds):  # inf (or nan) would be a wait without a bound
        raise PeError(f"PE_RENDEZVOUS_SECONDS={value!r}: give the rendezvous's wait in seconds, e.g. 60")
    return max(1.0, seconds)


def connect_from_env(env=os.environ):
    """One MPI communicator over every process Fluid's environment ``env`` names (ranked as under one
    mpiexec), or None when it names one process. Blocks until every role has come (at most
    PE_RENDEZVOUS_SECONDS); a role that never comes ends this process with one line naming it."""
    if _JOINED:
        return _JOINED["comm"]
    cluster = cluster_from_env(env)
    if cluster is None:
        return None
    if not rank_guard.under_mpi():
        raise PeError(
            f"{cluster.who(cluster.rank)} must run under an mpiexec of its own to join the others "
            f"(MPICH cannot connect processes that no mpiexec started): start it with pe fluid, which "
            f"does so"
        )
    wait = timeout_s(env)
    check_hosts(cluster, min(wait, _RESOLVE_S))
    mpi = processes._mpi()
    done, clock = threading.Event(), {"start": time.monotonic(), "until": time.monotonic() + wait + _MPI_SLACK_S}
    threading.Thread(target=_watchdog, args=(cluster, clock, done), daemon=True).start()
    try:
        comm, links = (_root if cluster.rank == 0 else _peer)(mpi, cluster, wait, clock)
    except PeError as e:
        peer_watch.stop(f"pe: {e}")
    done.set()
    if cluster.rank == 0:
        peer_watch.watch(cluster, links)  # (the others watch from the moment they get the port)
    _JOINED.update(comm=comm, cluster=cluster)
    processes.set_world(comm)
    return comm


def role_alone(argv, env=os.environ):
    """``pe ARGV`` started on its own (no mpiexec) with Fluid's environment naming several processes
    (a role started by hand, or one a pod): runs it again under an mpiexec of its own (``mpiexec -n
    1``, see above) with its place in the environment, and returns the exit status; None when pe
    runs as it is (one process, or under mpiexec already)."""
    _COMMAND["argv"] = list(argv)  # (join_given's rerun)
    if rank_guard.under_mpi() or RANK_ENV in env:
        return None
    cluster = cluster_from_env(env)
    if cluster is None:
        note = single_process_note(env)
        if note:
            print(note, file=sys.stderr)
        return None
    check_hosts(cluster, min(timeout_s(env), _RESOLVE_S))
    try:
        return subprocess.run(_alone_command(argv), env=_alone_env(env, cluster)).returncode
    except KeyboardInterrupt:
        return 130


def _alone_command(argv):
    return [rank_guard.mpiexec(), "-n", "1", sys.executable, "-m", "pe_cli"] + list(argv)


def _alone_env(env, cluster):
    return dict(env, **rank_env(cluster), **transport_env(env))


def join_given(facts, what):
    """A role given in code (fleet's UserDefinedRoleMaker and UserDefinedCollectiveRoleMaker, ``what``
    names it): ``facts`` is the Fluid environment it stands for (PADDLE_TRAINING_ROLE, ...). When the
    process first talks to the others (``processes.world()``), it joins them as a role started with
    that environment would: ``connect_from_env`` under an mpiexec of its own; started by ``pe fluid``
    outside any mpiexec, this process becomes ``mpiexec -n 1 pe fluid ...`` (execve, the same command
    with ``facts`` in its environment), whose script starts over and joins before it runs. Nothing
    to do for one process, under a shared mpiexec, or once joined; None forgets an earlier role.
    Returns why the process cannot join (one line) where it is neither under mpiexec nor started by
    ``pe fluid`` (nothing is left to happen at processes.world() then), else None."""
    cluster = None if facts is None else cluster_from_env(facts)
    if cluster is not None and _JOINED and not _same_place(cluster, _JOINED["cluster"]):
        joined = _JOINED["cluster"]
        raise PeError(
            f"{what}: this process is {cluster.names[cluster.rank]} of {cluster.size} processes, but "
            f"Fluid's environment (PADDLE_*) made it {joined.names[joined.rank]} of {joined.size}: give "
            f"the role in one place (unset the PADDLE_* variables, or use PaddleCloudRoleMaker)"
        )
    processes.join_on_first_use(None)
    if cluster is None or processes.world_size() > 1 or _JOINED:
        return None
    if not rank_guard.under_mpi() and "argv" not in _COMMAND:
        return (
            f"{what}: {cluster.who(cluster.rank)} joins roles started on their own only under pe: run the "
            f"script with pe fluid SCRIPT (it starts the role under an mpiexec of its own)"
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith("PADDLE_") and k not in ("TRAINING_ROLE", "POD_IP")}
    env.update(facts)
    processes.join_on_first_use(lambda: _join_given(env, cluster))
    return None


def _same_place(a, b):
    """The same rank among the same roles meeting at the same root (a trainer's own endpoint aside)."""
    return (a.rank, a.names, a.endpoints[0]) == (b.rank, b.names, b.endpoints[0])


def _join_given(env, cluster):
    if rank_guard.under_mpi():
        connect_from_env(env)
        return
    rank_guard.flush_output()
    command = _alone_command(_COMMAND["argv"])
    os.execve(command[0], command, _alone_env(env, cluster))


def transport_env(env):
    """MPICH's transport for roles started on their own: its OFI netmod over libfabric's tcp provider,
    unless ``env`` chooses one (MPIR_CVAR_CH4_NETMOD, FI_PROVIDER or UCX_TLS). MPICH's default, UCX,
    takes two processes of one machine for one host (its shared memory) even in two network
    namespaces or two pods of one node, and their Connect then waits for ever."""
    if any(env.get(name) for name in _TRANSPORT_VARS):
        return {}
    return {"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "tcp"}


def join_role(env=os.environ):
    """In a role ``role_alone`` started: joins the other processes before the script runs."""
    if RANK_ENV in env:
        connect_from_env(env)


def _watchdog(cluster, clock, done):
    """MPI's Accept/Connect have no timeout: a process lost in the middle of one ends the wait here,
    at ``clock["until"]`` (which a peer moves when the root says how long it waits)."""
    while not done.wait(0.5):
        if time.monotonic() > clock["until"]:
            peer_watch.stop(
                f"pe: rendezvous: {cluster.who(cluster.rank)} could not join the others within "
                f"{time.monotonic() - clock['start']:.0f} s (a process was lost while MPI connected "
                f"them); stopping"
            )


def _root(mpi, cluster, wait, clock):
    """Rank 0: listens at its endpoint, admits ranks 1, 2, ... in order."""
    _, port = host_port(cluster.endpoints[0], cluster.names[0])
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(("", port))
    except OSError as e:
        raise PeError(f"rendezvous: {cluster.who(0)} cannot listen on port {port}: {e.strerror}") from None
    server.listen(cluster.size)
    admission = Admission(server, cluster, time.monotonic() + wait, wait)
    port_name = mpi.Open_port()
    comm = mpi.COMM_SELF
    try:
        for rank in range(1, cluster.size):
            peer_watch.send(admission.link(rank).sock, f"PORT {socket.gethostname()} {os.getpid()} {port_name}")
            comm = comm.Accept(port_name, root=0).Merge(high=False)
    except PeError as e:
        admission.stop()
        for link in admission.links.values():
            peer_watch.send(link.sock, f"FAIL pe: {e}")
        raise
    finally:
        admission.stop()
        server.close()
    mpi.Close_port(port_name)
    return comm, dict(admission.links)


def _connect(cluster, wait):
    """The socket to the root, connected within ``wait`` s (a PeError naming it otherwise)."""
    host, port = host_port(cluster.endpoints[0], cluster.names[0])
    deadline = time.monotonic() + wait
    while True:
        try:
            return socket.create_connection((host, port), timeout=max(0.1, min(2.0, deadline - time.monotonic())))
        except OSError:
            if time.monotonic() > deadline:
                raise PeError(
                    f"rendezvous: {cluster.who(0)} never answered at {cluster.endpoints[0]} within "
                    f"{wait:g} s (PE_RENDEZVOUS_SECONDS); stopping"
                ) from None
            time.sleep(0.2)


def _next_line(link, seconds):
    """The root's next line within ``seconds`` (None when nothing came; '' when it closed)."""
    ready, _, _ = select.select([link], [], [], seconds)
    if not ready:
        return None
    link.settimeout(max(1.0, seconds))
    line = peer_watch.read_line(link)
    link.settimeout(None)
    return line


def _port_line(cluster, link, wait, clock):
    """The root's PORT line: its WAIT first, within ``wait`` s, then PORT before its wait ends (the
    watchdog's ``clock`` moves to match); a root's FAIL ends this process with its line."""
    line = _next_line(link, wait)
    if line is None:
        raise PeError(
            f"rendezvous: {cluster.who(0)} accepted the connection but sent nothing in {wait:g} s "
            f"(PE_RENDEZVOUS_SECONDS): another program may be listening on that port; stopping"
        )
    if line.startswith("WAIT "):
        words = line.split(" ")
        left = min(float(words[1]), wait) if len(words) == 2 and words[1].replace(".", "", 1).isdigit() else wait
        clock["until"] = time.monotonic() + left + _MPI_SLACK_S
        line = _next_line(link, left + _MPI_SLACK_S)
        if line is None:
            raise PeError(
                f"rendezvous: {cluster.who(0)} admitted this process but sent nothing more in "
                f"{left + _MPI_SLACK_S:.0f} s ({left:.0f} s of PE_RENDEZVOUS_SECONDS and "
                f"{_MPI_SLACK_S} s for MPI); stopping"
            )
    if line.startswith("FAIL "):
        peer_watch.stop(line[5:])
    if not line.startswith("PORT ") or len(line.split(" ", 3)) < 4:
        peer_watch.stop(
            f"pe: rendezvous: {cluster.who(0)} closed the connection before this process "
            f"({cluster.who(cluster.rank)}) joined; stopping"
        )
    return line


def _peer(mpi, cluster, wait, clock):
    """Rank > 0: connects to the root, says who it is, waits for the port, joins."""
    link = _connect(cluster, wait)
    link.settimeout(None)
    peer_watch.send(
        link,
        f"HELLO {cluster.rank} {cluster.size} {cluster.endpoints[cluster.rank]} {socket.gethostname()} {os.getpid()}",
    )
    _, host, pid, port_name = _port_line(cluster, link, wait, clock).split(" ", 3)
    links = {0: peer_watch.Link(link, host, pid)}
    peer_watch.watch(cluster, links)  # the root's FAIL reaches this process while it waits in MPI below
    comm = mpi.COMM_SELF.Connect(port_name, root=0).Merge(high=True)
    for _ in range(cluster.rank + 1, cluster.size):
        comm = comm.Accept(None, root=0).Merge(high=False)
    if comm.Get_rank() != cluster.rank:
        raise PeError(f"rendezvous: joined as MPI rank {comm.Get_rank()} instead of {cluster.rank}")
    return comm, links
