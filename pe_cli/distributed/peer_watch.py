"""Liveness of processes joined by the rendezvous (rendezvous.py): the TCP sockets the root handed
the MPI port name over stay open while they train, and carry three kinds of line:

- ``BYE``: this process ends normally (sent at exit); its socket closing after it means nothing;
- ``FAIL <line>``: a process failed; ``<line>`` is the one line that names its rank, host and
  cause. Its rank guard sends it (pe_cli/distributed/rank_guard.py learns the cause from the kernel, kill -9
  and os._exit too); the root passes it on to every other process;
- nothing, then the socket closes: the process (or its host) is lost without a word.

Every process watches its sockets in a daemon thread (the root all of them, the others the root's),
and on a failure prints the line once and ends (``stop``), so no survivor waits in MPI for ever.
"""

import atexit
import os
import select
import socket
import sys
import threading
from dataclasses import dataclass

from . import rank_guard


@dataclass
class Link:
    """The socket to another process of the rendezvous, and where that process runs."""

    sock: socket.socket
    host: str
    pid: str


_LIMIT = 4096


def send(link, line):
    """Sends one line (errors ignored: the other end may be gone already)."""
    try:
        link.sendall((" ".join(str(line).split()) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def read_line(link):
    """One line from ``link`` ('' when it closes first)."""
    data = b""
    while not data.endswith(b"\n") and len(data) < _LIMIT:
        try:
            chunk = link.recv(1)
        except OSError:
            return ""
        if not chunk:
            return ""
        data += chunk
    return data.decode("utf-8", "replace").strip()


def stop(line):
    """Prints ``line`` and ends this process at once: another process failed, so MPI would wait for
    it for ever. Under a rank guard the guard ends quietly (the line is said)."""
    sys.stderr.write(line.rstrip() + "\n")
    rank_guard.stopped()
    os._exit(1)


def _lost(cluster, rank, link):
    return (
        f"pe: rank {rank} of {cluster.size} ({cluster.who(rank)}, pid {link.pid} on {link.host}) was lost: "
        f"its connection closed without a word (its host, or the process with its guard, was killed); "
        f"stopping every rank"
    )


def watch(cluster, links):
    """Starts watching ``links`` ({rank: socket}) and says BYE on them at a normal exit. The guard
    gets a copy of the sockets, to send its FAIL line when this process dies."""
    rank_guard.share_links([link.sock for link in links.values()])
    atexit.register(lambda: [send(link.sock, "BYE") for link in links.values()])
    target = _watch_root if cluster.rank == 0 else _watch_peer
    threading.Thread(target=target, args=(cluster, dict(links)), name="pe-peer-watch", daemon=True).start()


def _watch_peer(cluster, links):
    finished = False
    while True:
        line = read_line(links[0].sock)
        if line == "BYE":
            finished = True  # the root ended normally (a server: every trainer had finished with it)
        elif line.startswith("FAIL "):
            stop(line[5:])
        elif not line:
            if finished:
                return
            stop(_lost(cluster, 0, links[0]))


def _watch_root(cluster, links):
    finished = set()
    while links:
        ready, _, _ = select.select([link.sock for link in links.values()], [], [])
        for sock in ready:
            rank = next(r for r, link in links.items() if link.sock is sock)
            line = read_line(sock)
            if line == "BYE":
                finished.add(rank)
                continue
            if not line and rank in finished:
                links.pop(rank).sock.close()
                continue
            said = line[5:] if line.startswith("FAIL ") else _lost(cluster, rank, links[rank])
            for other, link in links.items():
                if other != rank:
                    send(link.sock, f"FAIL {said}")
            stop(said)
