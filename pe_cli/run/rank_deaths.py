"""One line for a rank that died without its own (``pe train --np``, ``pe launch``): each rank's guard
(distributed/rank_guard.py) says why its rank failed, but a guard killed itself (kill -9, the OOM
killer) says nothing, and mpiexec ended with exit code 9 and not a word. The guards note their rank,
pid and host in a folder this process gives them (``PE_RANKS_DIR``) and ``end`` when they end; while
mpiexec runs, a thread waits on a pidfd of each guard for the first one gone without its end note (the
others are stopped by mpiexec after it, as silently), named when mpiexec ends in failure and no guard
said a line:

    pe: rank 1 of 2 (pid 4242 on vm) ended without a word: its process was killed (SIGKILL: the OOM
    killer, or kill -9); every rank stopped (mpiexec's exit code 9)
"""

import os
import select
import shutil
import tempfile
import threading

from ..distributed.rank_guard import RANKS_DIR


class RankWatch:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="pe-ranks-")
        self.first = None  # the note (rank, size, pid, host) of the first guard gone without its end
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def env(self, env=None):
        """The environment of mpiexec: ``env`` (default: this process's) with the notes' folder."""
        return dict(os.environ if env is None else env, **{RANKS_DIR: self.dir})

    def _notes(self):
        notes = []
        for name in sorted(os.listdir(self.dir)):
            if name.startswith("rank-") and not name.endswith(".tmp"):
                try:
                    with open(os.path.join(self.dir, name)) as f:
                        notes.append(f.read(400).split())
                except OSError:
                    pass
        return notes

    def _watch(self):
        """Waits on a pidfd of each noted guard (woken the moment one ends, before another rank's end
        can follow it); where pidfds are missing, looks every 0.1 s."""
        poller, fds = select.poll(), {}
        while not self._stop.is_set() and self.first is None:
            for note in self._notes():
                if len(note) == 4 and note[2].isdigit() and note[0] not in fds.values():
                    try:
                        fd = os.pidfd_open(int(note[2]))
                    except (AttributeError, OSError):  # gone already, or no pidfds here
                        self._look()
                        continue
                    fds[fd] = note[0]
                    poller.register(fd, select.POLLIN)
            for fd, _ in poller.poll(100):
                rank = fds[fd]
                poller.unregister(fd)
                note = next((n for n in self._notes() if n[0] == rank), None)
                if note is not None and len(note) == 4:  # gone without its end note
                    self.first = note
                    break
        for fd in fds:
            os.close(fd)

    def _look(self):
        if self.first is not None:
            return
        for note in self._notes():
            if len(note) == 4 and note[2].isdigit() and not _alive(int(note[2])):
                self.first = note
                return

    def finish(self, code):
        """The line to say once mpiexec ended with ``code`` (None: nothing to add); the folder removed."""
        self._stop.set()
        self._thread.join(1.0)
        self._look()
        notes = self._notes()
        shutil.rmtree(self.dir, ignore_errors=True)
        if code == 0 or self.first is None or any(note[-1] == "said" for note in notes):
            return None
        rank, size, pid, host = self.first
        return (
            f"pe: rank {rank} of {size} (pid {pid} on {host}) ended without a word: its process was killed "
            f"(SIGKILL: the OOM killer, or kill -9); every rank stopped (mpiexec's exit code {code})"
        )


def _alive(pid):
    """False once ``pid`` has ended (a zombie its parent has not reaped yet has ended too)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            pass
        return True
