"""pe's environment knobs (``PE_*``), each checked as its flag or config key is: ``pe`` checks every
one that is set before a command runs (``environment_problem``), so ``PE_NUM_THREADS=0`` is refused
as ``--threads 0`` is, never ignored until (or unless) a kernel reads it. The readers of the knobs
check them again where they read them (kernels/cpu/runtime/threads.py, distributed/, ...), for processes
not started by ``pe``; the limits' ``PE_MAX_*`` are base/limits.py's. Variables not listed here
(the ones pe sets for the processes it starts, a test's own) are left alone."""

import math
import os

from .limits import LIMITS, LimitError, limit


def _count(value):
    n = int(value)  # ValueError for '1.5', 'abc', ''
    if n < 1:
        raise ValueError
    return n


def _runs(value):
    n = int(value)
    if n < 0:
        raise ValueError
    return n


def _seconds(value):
    seconds = float(value)
    if not 0 < seconds < math.inf:
        raise ValueError
    return seconds


def _finite(value):
    seconds = float(value)  # the rendezvous takes any finite wait (at least 1 s is waited)
    if not math.isfinite(seconds):
        raise ValueError
    return seconds


def _choice(*choices):
    def check(value):
        if value.strip().lower() not in choices:
            raise ValueError
        return value

    check.choices = choices
    return check


_SWITCH = _choice("0", "1")
_WORDS = _choice("0", "1", "false", "true", "no", "yes", "off", "on")

KNOBS = {
    "PE_NUM_THREADS": (_count, "the threads pe's kernels use, as --threads: a whole number of at least 1"),
    "PE_DEVICE_THREADS": (_count, "the threads of each CPU device: a whole number of at least 1"),
    "PE_RENDEZVOUS_SECONDS": (_finite, "the rendezvous's wait in seconds, e.g. 60"),
    "PE_PSERVER_WAIT_SECONDS": (_seconds, "a parameter server's wait for a trainer in seconds, above 0, e.g. 900"),
    "PE_STALL_SECONDS": (
        _seconds,
        "how long a rank may wait on the others before its stall is reported, in seconds above 0, e.g. 120",
    ),
    "PE_ASYNC_WORKERS": (_choice("processes", "threads"), "processes or threads"),
    "PE_BLAS": (_choice("auto", "mkl", "numpy", ""), "auto, mkl or numpy"),
    "PE_CUDA_GEMM": (_choice("auto", "numba", "cublas", ""), "auto, numba or cublas"),
    "PE_CUDA_LAUNCH": (_choice("pe", "numba"), "pe or numba"),
    "PE_CUDA_SYNC": (_SWITCH, "1 (on) or 0"),
    "PE_CUDA_GRAPHS": (_SWITCH, "1 (on) or 0"),
    "PE_PLANNED_STEP": (_SWITCH, "1 (on) or 0"),
    "PE_SEGMENT_COMPILE_AFTER": (
        _runs,
        "the runs of a planned segment's launches one by one before it is compiled: a whole number, 0 or more",
    ),
    "PE_COMPILE_HELPER": (_SWITCH, "0 (off) or 1"),
    "PE_ONEDNN": (_SWITCH, "0 (off) or 1"),
    "PE_MALLOC_TUNE": (_SWITCH, "0 (off) or 1"),
    "PE_DEBUG": (_SWITCH, "1 (tracebacks) or 0"),
    "PE_FLUSH_DENORMALS": (_WORDS, "1 (the default) or 0"),
}


def environment_problem():
    """One line saying the first ``PE_*`` knob of this process's environment that is set to what it
    cannot take, and what it takes; None when every one is fine."""
    env = os.environ
    for name in sorted(n for n in env if n.startswith("PE_")):
        value = env[name]
        if name in KNOBS:
            check, takes = KNOBS[name]
            try:
                check(value)
            except ValueError:
                return f"{name}={value[:40]!r}: give {takes} (or unset it)"
        elif any(spec.env == name for spec in LIMITS.values()):
            try:
                limit(next(k for k, spec in LIMITS.items() if spec.env == name))
            except LimitError as e:
                return f"{e}; unset it for pe's default"
    return None
