"""Every rank's failure stops every rank. Under mpiexec (``pe train --np K``, ``pe launch``, or the
user's own ``mpiexec -n K pe train ...``) each rank process becomes a small guard that runs the
real rank as its child and waits for it:

- the child (``python -m pe_cli.distributed.rank_guard --child MODULE ARGS``) runs MODULE as ``__main__``;
  when it ends with an error it hands its cause (an exception, the last line it wrote to stderr) to
  the guard through a pipe and exits at once (``fail``), never waiting in MPI's finalize for ranks
  that wait for it;
- the guard learns every end from the kernel (an exit code, a signal: kill -9, ``os._exit`` too),
  prints one line naming the rank, its host and the cause, and exits non-zero, upon which mpiexec
  ends every other rank (within a second or two). The child dies with its guard (PR_SET_PDEATHSIG),
  and a signal the guard gets (mpiexec stopping the job, Ctrl-C) is passed on to the child.

``python -m pe_cli.distributed.rank_guard MODULE ARGS`` is a guard (pe launch starts its ranks so); the
guard imports no more than this module (and base/errors.py), so it starts in a fraction of a second.

A role started on its own (rendezvous.py: no mpiexec shared with the others) hands its guard
a copy of its sockets to the other processes (``share_links``); when it fails, the guard sends its
line there (``FAIL <line>``), so the others print it and stop; a process that stops because another
failed tells its guard so (``stopped``), which then says nothing more.

The child gets mpiexec's PMI connection (the PMI_FD descriptor), so MPI sees it as the rank; the
guard keeps its copy open, so mpiexec (which kills every rank at once when that connection closes
early) waits for the guard's line.

MPICH's single-copy transfers between ranks on one host (CMA: one rank reads the other's memory) are
off in the child (``MPIR_CVAR_CH4_CMA_ENABLE=0`` unless the user set it): a rank that dies while
another reads its buffer makes MPICH abort the reader, and the abort kills every process, the dying
rank's guard too, before it names the rank (seen once in CI). The shared-memory copy instead leaves the
others waiting in the collective until mpiexec stops them; it costs about 0.1 ms per MB gathered.
"""

import ctypes
import os
import signal
import socket
import sys
import threading
import traceback

from ..base.errors import PeError

STATUS_FD = "PE_RANK_STATUS_FD"
LINKS_FD = "PE_RANK_LINKS_FD"  # a unix socket: the child hands the guard its rendezvous links
RANKS_DIR = "PE_RANKS_DIR"  # where each guard notes its rank, pid and host, and its end
_STOPPED = "(stopped: another process failed)"  # the child ended because another process failed (said already)
_PR_SET_PDEATHSIG = 1
_GRACE_S = 5.0
_INTERRUPTED = 130  # a rank's exit code after Ctrl-C: pe stops every rank with a checkpoint
_SAID = []  # the line this guard said, once said


def under_mpi():
    """True in a process mpiexec started (MPICH's PMI_RANK, Open MPI's OMPI_COMM_WORLD_RANK)."""
    return "PMI_RANK" in os.environ or "OMPI_COMM_WORLD_RANK" in os.environ


def mpiexec():
    """The mpiexec of the mpich wheel beside this Python (the ``mpi`` extra), else the PATH's."""
    import shutil

    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    found = shutil.which("mpiexec", path=path)
    if found is None:
        raise PeError(
            "several processes need MPI's mpiexec: pip install 'pe-cli[mpi]' (mpi4py and the mpich "
            "wheel), or put an MPI's mpiexec on PATH"
        )
    return found


def under_guard():
    """True in a rank process that a guard started (it reads the status pipe)."""
    return os.environ.get(STATUS_FD, "").isdigit()


def needs_guard():
    """True in a process mpiexec started that runs under no rank guard yet."""
    return under_mpi() and not under_guard()


def flush_output():
    """Flushes stdout and stderr before this process ends without Python's exit (os._exit, execve); a
    closed or broken stream is passed over."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def fail(cause, code=1):
    """Under a rank guard: hands ``cause`` (one line) to the guard and ends this process with ``code``
    at once (no atexit, no MPI finalize, which would wait for the ranks that wait for this one).
    Returns without a guard."""
    if not under_guard():
        return
    flush_output()
    try:
        os.write(int(os.environ[STATUS_FD]), " ".join(str(cause).split()).encode("utf-8", "replace")[:2000])
    except OSError:
        pass
    os._exit(code or 1)


def stopped():
    """Under a rank guard: ends this process at once, telling the guard that another process failed
    and the line is said (the guard then reports nothing). Returns without a guard."""
    fail(_STOPPED)


def share_links(links):
    """Under a rank guard: hands the guard a copy of ``links`` (the sockets to the other processes
    of a rendezvous, peer_watch.py), on which it sends ``FAIL <line>`` when this process
    fails. Does nothing without a guard."""
    fd = os.environ.get(LINKS_FD, "")
    if not fd.isdigit() or not links:
        return
    with socket.socket(fileno=os.dup(int(fd))) as channel:
        socket.send_fds(channel, [b"L"], [link.fileno() for link in links])


def _collect_links(channel, into):
    """The guard's thread: the sockets the child shares, until it ends."""
    while True:
        try:
            _, fds, _, _ = socket.recv_fds(channel, 16, 64)
        except OSError:
            return
        if not fds:
            return
        into.extend(fds)


def _tell_links(fds, line):
    for fd in fds:
        try:
            os.set_blocking(fd, False)
            os.write(fd, f"FAIL {line}\n".encode("utf-8", "replace"))
            os.close(fd)
        except OSError:
            pass


def _die_with_parent(parent):
    def set_it():
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent:  # the guard died before the line above
            os._exit(1)

    return set_it


def guard(module, args):
    """Runs ``python -m MODULE ARGS`` as this rank's child and returns the rank's exit status, after
    one line on stderr when it failed. Under ``pe train --np`` / ``pe launch`` (``RANKS_DIR`` set) the
    guard notes its rank, pid and host there as it starts and ``end`` as it ends, so a guard killed
    before its line (kill -9, the OOM killer) is named by pe (run/rank_deaths.py)."""
    _note("")
    try:
        return _guard(module, args)
    finally:
        _note(" end said" if _SAID else " end")


def _note(tail):
    folder = os.environ.get(RANKS_DIR)
    if not folder:
        return
    rank = os.environ.get("PMI_RANK", "?")
    path = os.path.join(folder, f"rank-{rank}")
    try:
        with open(path + ".tmp", "w") as f:
            f.write(f"{rank} {os.environ.get('PMI_SIZE', '?')} {os.getpid()} {socket.gethostname()}{tail}\n")
        os.replace(path + ".tmp", path)
    except OSError:
        pass  # a note lost: pe says less, the rank runs as it would


def _guard(module, args):
    import subprocess

    read_end, write_end = os.pipe()
    keep = [write_end]
    pmi = os.environ.get("PMI_FD", "")
    if pmi.isdigit():
        keep.append(int(pmi))
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    keep.append(theirs.fileno())
    env = dict(os.environ, **{STATUS_FD: str(write_end), LINKS_FD: str(theirs.fileno())})
    env.setdefault("MPIR_CVAR_CH4_CMA_ENABLE", "0")
    child = subprocess.Popen(
        [sys.executable, "-m", "pe_cli.distributed.rank_guard", "--child", module, *args],
        env=env,
        pass_fds=keep,
        preexec_fn=_die_with_parent(os.getpid()),
    )
    os.close(write_end)  # the guard keeps PMI_FD open: mpiexec sees the rank end when the guard ends,
    theirs.close()
    links = []
    collector = threading.Thread(target=_collect_links, args=(ours, links), daemon=True)
    collector.start()
    outside = _pass_signals_on(child)
    code = child.wait()
    collector.join(1.0)
    with os.fdopen(read_end, "rb") as status:
        os.set_blocking(status.fileno(), False)
        cause = (status.read(4000) or b"").decode("utf-8", "replace").strip()
    if cause == _STOPPED:
        return code or 1  # another process failed: this one said so and stopped
    if code in (0, _INTERRUPTED) and not (code and links):  # an interrupted rank stops the others itself
        return code
    line = _line(child.pid, code, cause)
    if not outside:  # a signal from mpiexec (another rank failed) or Ctrl-C: said elsewhere
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
        _SAID.append(line)
    _tell_links(links, line)
    return code if code > 0 else 128 - code


def _pass_signals_on(child):
    """Signals the guard gets go on to the child (which gets SIGKILL if it outlives them by
    _GRACE_S). Returns a list holding the signals received."""
    received = []

    def handler(signum, frame):
        received.append(signum)
        try:
            child.send_signal(signum)
            if signum != signal.SIGINT:
                signal.signal(signal.SIGALRM, lambda *a: child.kill())
                signal.setitimer(signal.ITIMER_REAL, _GRACE_S)
        except (ProcessLookupError, OSError):
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
        signal.signal(signum, handler)
    return received


def _line(pid, code, cause):
    """The line naming this rank, its host and why it ended."""
    rank = os.environ.get("PE_RENDEZVOUS_RANK") or os.environ.get("PMI_RANK", "?")
    size = os.environ.get("PE_RENDEZVOUS_SIZE") or os.environ.get("PMI_SIZE", "?")
    host = socket.gethostname()
    role = os.environ.get("PE_RENDEZVOUS_ROLE")  # a role started on its own (rendezvous.py)
    pid = f"{role}, pid {pid}" if role else f"pid {pid}"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        why = f"killed by signal {-code} ({name})"
    elif cause:
        why = f"{cause} (exit code {code})"
    else:
        why = f"exited with code {code} (no Python error: os._exit, or a crash in native code)"
    return f"pe: rank {rank} of {size} ({pid} on {host}) failed: {why}; stopping every rank"


class _LastLine:
    """stderr, remembering the last line written to it (a rank's cause, when it says no other)."""

    def __init__(self, stream):
        self._stream, self.last = stream, ""

    def write(self, text):
        lines = [line for line in str(text).splitlines() if line.strip()]
        if lines:
            self.last = lines[-1].strip()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def child(module, args):
    """The rank itself: ``python -m MODULE ARGS``; a failure hands its cause to the guard."""
    import runpy

    sys.stderr = _LastLine(sys.stderr)
    sys.argv = [module, *args]
    cause = None
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) or e.code is None else 1
        if isinstance(e.code, str):
            cause = e.code
    except PeError as e:  # pe's own refusal (a log that is a symlink): its line, no traceback
        code, cause = 1, str(e)
    except BaseException as e:  # noqa: BLE001 -- the rank's end, whatever it is, goes to the guard
        traceback.print_exc()
        code, cause = (130 if isinstance(e, KeyboardInterrupt) else 1), f"{type(e).__name__}: {e}"
    if code == _INTERRUPTED:
        return code
    if code:
        fail(cause or sys.stderr.last.removeprefix("pe: error: "), code)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m pe_cli.distributed.rank_guard [--child] MODULE [ARGS...] (a rank under mpiexec)")
    if sys.argv[1] == "--child":
        sys.exit(child(sys.argv[2], sys.argv[3:]))
    sys.exit(guard(sys.argv[1], sys.argv[2:]))
