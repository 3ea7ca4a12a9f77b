"""Fault injection for tests/cli/test_rank_failures.py (on PYTHONPATH there only): in the process of MPI
rank PE_FAULT_RANK that trains (it has imported pe's training loop and mpi4py), PE_FAULT_AFTER
seconds after the loop is imported, PE_FAULT happens: ``raise`` (a RuntimeError in the main
thread, wherever it is), ``kill`` (SIGKILL to itself) or ``exit`` (os._exit(3))."""

import os
import signal
import sys
import threading
import time

_MODE = os.environ.get("PE_FAULT")


def _raise(signum, frame):
    raise RuntimeError("injected fault in rank 1")


def _watch():
    while not ("pe_cli.run.loop" in sys.modules and "mpi4py.MPI" in sys.modules):
        time.sleep(0.05)
    time.sleep(float(os.environ.get("PE_FAULT_AFTER", "1")))
    if _MODE == "raise":
        signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)
    elif _MODE == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif _MODE == "exit":
        os._exit(3)


if _MODE and os.environ.get("PMI_RANK") == os.environ.get("PE_FAULT_RANK", "1"):
    signal.signal(signal.SIGUSR1, _raise)
    threading.Thread(target=_watch, daemon=True).start()
