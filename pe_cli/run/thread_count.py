"""How many threads a command's kernels use: ``--threads N``, else the run config's ``threads:``, else
``PE_NUM_THREADS``, else the CPUs this process may run on (pe_cli/kernels/cpu/runtime/threads.py then
divides them among the devices running at once).

A choice is applied before any kernel runs: it becomes ``PE_NUM_THREADS`` (the thread rule's cores,
inherited by the processes the command starts: ``--np``'s ranks, ``pe launch``'s, a Fluid script's)
and, while numba is not loaded yet, ``NUMBA_NUM_THREADS`` (the size of numba's pool, which numba
fixes when it loads), so no more than N threads ever compute. More threads than the CPUs this process
may run on only wait on each other's time slices (docs/PERFORMANCE.md, "Threads on a busy machine"):
such a count is lowered to the CPUs, with a warning.
"""

import os
import sys

from ..base.errors import UsageError
from ..base.limits import cores as machine_cores
from ..kernels.cpu.runtime import threads as thread_rule


def parse_threads(value, where="--threads"):
    """``value`` (a flag's text or a config's integer) as a thread count, or None where not given;
    a count below 1 or not a number is a one-line UsageError naming ``where``."""
    if value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = None
    if n is None or isinstance(value, bool) or n < 1:
        raise UsageError(
            f"{where} {value}: the number of threads must be a whole number of at least 1 "
            f"(the default is every CPU this process may run on: {machine_cores()})"
        )
    return n


def use_threads(flag=None, configured=None, warn=None):
    """Applies ``--threads`` (``flag``), else the config's ``threads`` (``configured``); with neither,
    ``PE_NUM_THREADS`` or the CPUs stand. Returns the count applied, or None."""
    n = parse_threads(flag)
    where = "--threads"
    if n is None:
        n, where = parse_threads(configured, "threads:"), "threads:"
    if n is None:
        return None
    most = machine_cores()
    if n > most:
        (warn or _warn)(
            f"pe: warning: {where} {n} is more than the {most} CPU(s) this process may run on; "
            f"using {most} (more threads than CPUs wait on each other's time slices)"
        )
        n = most
    os.environ["PE_NUM_THREADS"] = str(n)
    if "numba" not in sys.modules:
        os.environ["NUMBA_NUM_THREADS"] = str(n)
    thread_rule.refresh()
    return n


def _warn(message):
    print(message, file=sys.stderr)
