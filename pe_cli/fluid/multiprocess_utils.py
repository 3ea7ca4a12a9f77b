"""``paddle.fluid.multiprocess_utils``: cleanup at exit (and on signals) for the reader processes of
DataLoader. ``multiprocess_queue_set`` holds the queues to drain when the process ends."""

import atexit
import queue
import signal
import sys

from . import core  # noqa: F401 -- Fluid's module has it
from .unsupported import optional_module

six = optional_module("six")
multiprocess_queue_set = set()


def _clear_multiprocess_queue_set():
    for data_queue in multiprocess_queue_set:
        while True:
            try:
                data_queue.get_nowait()
            except queue.Empty:
                break


class CleanupFuncRegistrar:
    """``register(function, signals=[])``: ``function`` runs once, at exit or when one of ``signals``
    arrives (SIGINT then raises KeyboardInterrupt; another signal exits with its number). A handler a
    signal had before runs at exit."""

    _executed_func_set = set()
    _registered_func_set = set()

    @classmethod
    def register(cls, function, signals=()):
        if not callable(function):
            raise TypeError(f"{function} is not callable object.")

        def run_once():
            if function not in cls._executed_func_set:
                try:
                    function()
                finally:
                    cls._executed_func_set.add(function)

        def on_signal(signum=None, frame=None):
            run_once()
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            sys.exit(signum)

        for sig in set(signals):
            before = signal.signal(sig, on_signal)
            if before in (signal.SIG_DFL, signal.SIG_IGN, None) or (
                sig == signal.SIGINT and before is signal.default_int_handler
            ):
                continue
            if before not in cls._registered_func_set:
                atexit.register(before)
                cls._registered_func_set.add(before)
        if function not in cls._registered_func_set:
            atexit.register(run_once)
            cls._registered_func_set.add(function)


CleanupFuncRegistrar.register(_clear_multiprocess_queue_set)
