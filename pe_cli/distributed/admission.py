"""The root's side of the rendezvous (rendezvous.py): it admits the other roles as they connect to
its endpoint, in a thread of its own, so that each gets its ``WAIT`` line at once, also while MPI
joins the ranks before it, and a connection that says nothing holds no one up."""

import select
import threading
import time

from ..base.errors import PeError
from . import peer_watch

HELLO_S = 5  # a connected process's HELLO line, at most (pe's roles send it at once)


class Admission:
    """The root's admission of the other roles, in a thread of its own, so that each gets its WAIT
    at once (also while MPI joins the ranks before it): ``links`` ({rank: Link}) fills as their
    HELLOs come; a connection that says no HELLO within HELLO_S is closed and remembered
    (``silent``, its address). Until every role has come or ``deadline`` passes."""

    def __init__(self, server, cluster, deadline, wait):
        self.server, self.cluster, self.deadline, self.wait = server, cluster, deadline, wait
        self.links, self.silent, self.error = {}, [], None
        self.cond, self.stopped = threading.Condition(), threading.Event()
        self.thread = threading.Thread(target=self._run, name="pe-rendezvous-admit", daemon=True)
        self.thread.start()

    def link(self, rank):
        """Rank ``rank``'s Link once it has come; a PeError naming the roles missing when the deadline
        passes first (and the silent connections), or the error of a process that cannot join."""
        with self.cond:
            while rank not in self.links and self.error is None and time.monotonic() < self.deadline:
                self.cond.wait(max(0.0, self.deadline - time.monotonic()))
            if self.error is not None:
                raise self.error
            if rank in self.links:
                return self.links[rank]
        self.stop()  # (the connections still silent at the deadline join ``silent``)
        with self.cond:
            missing = ", ".join(self.cluster.who(r) for r in range(1, self.cluster.size) if r not in self.links)
            strangers = (
                f"; {len(self.silent)} connection(s) said no HELLO (from {', '.join(self.silent[:3])}: "
                f"another program?)"
                if self.silent
                else ""
            )
            raise PeError(
                f"rendezvous: {missing} never connected to {self.cluster.endpoints[0]} within "
                f"{self.wait:g} s (PE_RENDEZVOUS_SECONDS){strangers}; stopping"
            )

    def stop(self):
        self.stopped.set()
        self.thread.join()

    def _run(self):
        pending = {}  # socket -> (address, when it connected)
        try:
            while (
                not self.stopped.is_set()
                and self.error is None
                and time.monotonic() < self.deadline
                and len(self.links) < self.cluster.size - 1
            ):
                ready, _, _ = select.select([self.server, *pending], [], [], 0.2)
                for sock in ready:
                    if sock is self.server:
                        link, address = self.server.accept()
                        pending[link] = (f"{address[0]}:{address[1]}", time.monotonic())
                    else:
                        self._hello(sock, pending.pop(sock)[0])
                for sock, (address, since) in list(pending.items()):
                    if time.monotonic() - since > HELLO_S:
                        self._ignore(pending, sock, address)
        except OSError:
            pass
        finally:
            for sock, (address, _) in list(pending.items()):
                self._ignore(pending, sock, address)
            with self.cond:
                self.cond.notify_all()

    def _ignore(self, pending, sock, address):
        """A connection that said no HELLO: not one of ours (a port scan, another program)."""
        pending.pop(sock, None)
        sock.close()
        with self.cond:
            self.silent.append(address)

    def _hello(self, link, address):
        link.settimeout(HELLO_S)
        words = peer_watch.read_line(link).split(" ")
        if len(words) < 3 or words[0] != "HELLO" or not words[1].isdigit() or not words[2].isdigit():
            self._ignore({}, link, address)
            return
        cluster, (rank, size) = self.cluster, (int(words[1]), int(words[2]))
        if size != cluster.size or not 0 < rank < cluster.size or rank in self.links:
            peer_watch.send(
                link,
                f"FAIL pe: rendezvous: {cluster.who(0)} counts {cluster.size} processes, this "
                f"one {size}: every role needs the same PADDLE_* endpoints and counts",
            )
            error = PeError(
                f"rendezvous: a process at {words[3] if len(words) > 3 else '?'} says it is rank {rank} "
                f"of {size}, but {cluster.who(0)} counts {cluster.size} processes"
                + (f" and rank {rank} has come already" if rank in self.links else "")
                + ": every role needs the same PADDLE_* endpoints and counts"
            )
            with self.cond:
                self.error = error
                self.cond.notify_all()
            return
        link.settimeout(None)
        peer_watch.send(link, f"WAIT {max(0.0, self.deadline - time.monotonic()):.1f}")
        with self.cond:
            self.links[rank] = peer_watch.Link(link, *(words[4:6] if len(words) >= 6 else ("?", "?")))
            self.cond.notify_all()
