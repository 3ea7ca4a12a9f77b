"""How a rank under pe's rank guard (pe_cli/run/rank_guard.py) fails: it writes its cause (one line)
to the guard's status pipe and ends at once, so it never waits in MPI's finalize for ranks that wait
for it; the guard prints the one line naming the rank, and mpiexec stops every rank."""
import os
import sys

STATUS_FD = "PE_RANK_STATUS_FD"


def under_guard():
    """True in a rank process that pe's rank guard started (it reads the status pipe)."""
    return os.environ.get(STATUS_FD, "").isdigit()


def fail(cause, code=1):
    """Under a rank guard: hands ``cause`` to the guard and ends this process with ``code`` (no
    atexit, no MPI finalize). Returns without a guard."""
    if not under_guard():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        os.write(int(os.environ[STATUS_FD]), " ".join(str(cause).split()).encode("utf-8", "replace")[:2000])
    except OSError:
        pass
    os._exit(code or 1)
