"""The parent's side of the compile helper process (compile_child.py): started on the first loop a
first run defers, fed one loop at a time, its answers read by a daemon thread. The serial loops a
step needs go first; a parallel twin (3-10x slower to compile) only once no serial loop has been
asked for in ``QUIET_S``, i.e. after the first steps (a kernel asks for its twin before its loop).
``done`` holds each answered loop's result until the caller collects it; ``finish()`` waits until
nothing is queued or compiling.

One helper per process: a forked child (a Hogwild worker) has none (``usable()`` is False there)
and compiles its loops itself, as does a process whose helper could not start or has died.
"""

import json
import os
import pathlib
import subprocess
import sys
import threading
import time

_ROOT = str(pathlib.Path(__file__).resolve().parents[4])  # the directory holding pe_cli/
_CODE = "import sys; sys.path.insert(0, sys.argv[1]); from pe_cli.kernels.cpu.runtime.compile_child import main; main()"


class Helper:
    QUIET_S = 0.5

    def __init__(self):
        self.cond = threading.Condition()
        self.pid = None  # the process that started the helper
        self.proc = None
        self.broken = False
        self.queue = [[], []]  # [serial loops, parallel twins]: requests not yet sent
        self.busy = None  # the key of the request being compiled
        self.done = {}  # key -> True (compiled and cached) or False (failed)
        self.sent = 0  # loops handed to the helper so far
        self.last_first = 0.0  # when a serial loop was last asked for
        self.timer = None  # wakes _send_next when a twin may go
        self.hurry = False  # finish(): twins go at once

    def mine(self):
        """True when this process started the helper and it is working."""
        return self.proc is not None and self.pid == os.getpid() and not self.broken

    def usable(self):
        """True when this process may hand loops to a helper (started now if need be)."""
        if os.environ.get("PE_COMPILE_HELPER", "1") == "0" or self.broken:
            return False
        if self.proc is not None:
            return self.pid == os.getpid()
        if self.pid is not None:  # started in the process this one was forked from
            return False
        return self._start()

    def _start(self):
        self.pid = os.getpid()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _CODE, _ROOT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                close_fds=True,
            )
            self.proc.stdin.write(json.dumps({"path": sys.path}) + "\n")
            self.proc.stdin.flush()
        except OSError:
            self.broken = True
            return False
        threading.Thread(target=self._read, name="pe-compile-helper", daemon=True).start()
        return True

    def ask(self, key, loop, name, spec, first):
        """Queues ``loop`` (a numba dispatcher its module binds to ``name``) for the argument types ``spec``."""
        request = {"module": loop.py_func.__module__, "name": name, "spec": spec}
        with self.cond:
            self.queue[0 if first else 1].append((key, request))
            self.sent += 1
            if first:
                self.last_first = time.monotonic()
            self._send_next()

    def _send_next(self):
        """(Under the condition.) Sends the next request when the helper is idle."""
        if self.busy is not None or self.broken:
            return
        serial, twins = self.queue
        if serial:
            key, request = serial.pop(0)
        elif twins:
            wait = self.last_first + self.QUIET_S - time.monotonic()
            if wait > 0 and not self.hurry:
                if self.timer is None:
                    self.timer = threading.Timer(wait, self._wake)
                    self.timer.daemon = True
                    self.timer.start()
                return
            key, request = twins.pop(0)
        else:
            return
        self.busy = key
        try:
            self.proc.stdin.write(json.dumps(dict(request, id=self.sent)) + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self._fail_all()

    def _wake(self):
        with self.cond:
            self.timer = None
            self._send_next()

    def _read(self):
        for line in self.proc.stdout:
            try:
                ok = bool(json.loads(line)["ok"])
            except (ValueError, KeyError, TypeError):
                ok = False
            with self.cond:
                self.done[self.busy] = ok
                self.busy = None
                self._send_next()
                self.cond.notify_all()
        with self.cond:  # the helper ended: what it had not compiled, we will
            self._fail_all()

    def _fail_all(self):
        self.broken = True
        for key in [self.busy] + [k for queue in self.queue for k, _ in queue]:
            if key is not None:
                self.done[key] = False
        self.busy, self.queue = None, [[], []]
        self.cond.notify_all()

    def waiting(self, key):
        """True while ``key`` is queued or compiling."""
        return key == self.busy or any(k == key for queue in self.queue for k, _ in queue)

    def close(self):
        """Lets the helper go: it ends after the loop it is compiling."""
        if self.proc is not None and self.pid == os.getpid():
            self.proc.stdin.close()

    def finish(self):
        """Waits until every loop handed over is answered."""
        if self.pid != os.getpid():  # (a forked process: the helper is its parent's)
            return
        with self.cond:
            self.hurry = True
            self._send_next()
            while self.busy is not None or any(self.queue):
                self.cond.wait()
            self.hurry = False
