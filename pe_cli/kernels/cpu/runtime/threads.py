"""How many threads each part of a CPU run uses: sized together, so that they do not fight.

The rule (docs/PERFORMANCE.md has the measurements behind it):

- ``cores``: the CPUs this process may run on (its affinity mask), or ``PE_NUM_THREADS``.
- ``devices``: the CPU devices running at once: 1 for ``Executor``, N for data parallelism
  (``ParallelExecutor`` / ``CompiledProgram.with_data_parallel`` on N ``CPUPlace``s, ``CPU_NUM=N``).
- Each device's kernels get ``max(1, free // devices)`` threads, where ``free`` is ``cores`` less
  the cores other processes keep busy, read from the kernel's counters every ``LOAD_EVERY_S``
  (kernels/cpu/runtime/cpu_load.py; a core counts as taken from half a core's load on; before a first
  reading, from the threads of other processes running at that instant). One device has
  the whole machine when it is quiet and leaves the busy cores alone when it is not (a parallel
  loop's part on a busy core waits a time slice, and every thread with it); one device per core
  (data parallelism's default) runs each kernel on its own thread. ``PE_DEVICE_THREADS`` fixes the
  count (no following the load).
- Those threads are numba's: the convolutions, GEMMs of at least ``SPLIT_GEMM_MACS`` multiply-adds
  and the loops that gain from it split their samples or rows over numba's pool (OpenMP), and each
  part calls BLAS single-threaded (numpy's, or MKL on an Intel CPU where it is installed:
  pe_cli/kernels/cpu/runtime/cblas.py). One pool for the whole
  machine: OpenBLAS's own threads (which spin between GEMMs) never compete with it.
- Where pe cannot call BLAS per thread (numpy built on a BLAS whose GEMM it does not find), BLAS
  threads take the device's share instead, for GEMMs of at least ``SMALL_GEMM_MACS`` multiply-adds
  (below that a second thread cost more than it brought), and numba loops stay single-threaded.
- The data-parallel executor runs each device's ops on its pool (``ExecutionStrategy.num_threads``,
  by default ``devices * 4``); kernels release the GIL, so at most ``devices`` kernels (each with its
  share of threads) compute at once.

pe sets BLAS's thread count at run time (threadpoolctl: OpenBLAS, MKL, BLIS), except where the
user chose it: with ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` or ``OMP_NUM_THREADS`` set, BLAS is
left as it is.
"""

import contextlib
import os
import threading
import time

import numpy as np

from ....base.errors import PeError
from . import cblas, cpu_load

_USER_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
SMALL_GEMM_MACS = 4 << 20  # BLAS's own threads: below this a second one cost more than it brought
# pe's pool: from here two row blocks on 2 threads beat one single-threaded GEMM (2026-11-23, this
# 2-core VM, p25 of 300 alternating calls: 0.65M multiply-adds even, 2.1M 1.38x, 3.1M 1.3-1.7x,
# 8.4M 1.73x faster)
SPLIT_GEMM_MACS = 1 << 20

_lock = threading.Lock()
_blas = None  # threadpoolctl controllers of the loaded BLAS libraries, found on first use
_applied = None  # the BLAS thread count last set
_planned = {}  # devices -> device_threads(devices): the environment is read once
_share = 1  # threads per device of the devices now running
_quiet_share = 1  # the same on a quiet machine: what work is divided by (see work_parts)
_blas_share = None  # BLAS threads for large GEMMs (None: BLAS left alone; 1: pe's pool does it)
_free = None  # cores the other processes left at the last use_devices (None: not followed)
_pool_blas = None  # pool_calls_blas(), found once
LOAD_EVERY_S = 0.25  # how often the other processes' load is read again
_load = None  # cpu_load.OtherLoad, made on first use
_load_read_at = 0.0
_cores_taken = 0  # cores other processes used at the last reading (rounded)


def cores():
    """The cores pe uses: ``PE_NUM_THREADS``, else the CPUs this process may run on, shared with
    the other trainer processes mpiexec started on this host (MPICH's MPI_LOCALNRANKS, Open MPI's
    OMPI_COMM_WORLD_LOCAL_SIZE)."""
    value = os.environ.get("PE_NUM_THREADS")
    if value:
        return _positive("PE_NUM_THREADS", value)
    try:
        n = len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        n = os.cpu_count() or 1
    local = next(
        (
            v
            for v in (os.environ.get("MPI_LOCALNRANKS"), os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE"))
            if v and v.isdigit() and int(v) > 0
        ),
        "1",
    )
    return max(1, n // int(local))


def device_threads(devices):
    """Threads for each of ``devices`` CPU devices running at once: ``PE_DEVICE_THREADS``, else
    ``max(1, cores // devices)``."""
    value = os.environ.get("PE_DEVICE_THREADS")
    if value:
        return _positive("PE_DEVICE_THREADS", value)
    return max(1, cores() // max(1, devices))


def user_sets_blas():
    """True when the environment fixes BLAS's threads (pe then leaves BLAS alone)."""
    return any(os.environ.get(v) for v in _USER_BLAS_VARS)


def use_devices(devices):
    """Sizes the threads for ``devices`` CPU devices running at once. Called by the executors before
    each run; a dict lookup when nothing changes (the environment is read on the first call for
    each device count; ``refresh()`` reads it again)."""
    global _share, _quiet_share, _blas_share, _free
    plan = _planned.get(devices)
    if plan is None:
        share = device_threads(devices)
        if user_sets_blas():
            blas = None
        elif pool_calls_blas():
            blas = 1
        else:
            blas = share
        follow = not os.environ.get("PE_DEVICE_THREADS")  # else the user's count stands
        plan = _planned[devices] = (share, blas, cores() if follow else None)
    _share, _blas_share, machine = plan
    _quiet_share = _share
    _free = None
    if machine is not None:
        _free = machine - _taken_by_others()
        _share = max(1, min(_share, _free // max(1, devices)))
    if _blas_share is not None and (_applied is None or (_blas_share == 1 and _applied != 1)):
        _set_blas(_blas_share)


def _taken_by_others():
    """Cores other processes are using, read at most every LOAD_EVERY_S (a dict-free comparison
    in between)."""
    global _load, _load_read_at, _cores_taken
    now = time.monotonic()
    if now - _load_read_at >= LOAD_EVERY_S:
        with _lock:
            if _load is None or now - _load_read_at > 4 * LOAD_EVERY_S:
                # first use, or back from a pause (between runs, an evaluation, a benchmark's idle
                # worker): what others did meanwhile says little about now; measure from here, and
                # until then count what runs at this instant
                _load = cpu_load.OtherLoad()
                _cores_taken = cpu_load.others_running()
            else:
                _cores_taken = int(_load.cores_in_use() + 0.5)
            _load_read_at = now
    return _cores_taken


def run_threads(devices):
    """Threads a run of ``devices`` devices takes turns on (the data-parallel scheduler's token):
    one per device, or as many as the cores the other processes left free at the last
    ``use_devices`` (at least 1): a thread without a core of its own waits for one while holding or
    wanting the token (docs/PERFORMANCE.md, 2026-11-28 "two CPU devices against one")."""
    return devices if _free is None else max(1, min(devices, _free))


def kernel_threads():
    """Threads the kernel running now may use (its device's share; 1 before any executor ran)."""
    return _share


@contextlib.contextmanager
def quiet_share():
    """While a step is planned: the device's share is the threads it has on a quiet machine (work_parts),
    so that the plan splits its loops for the machine, not for the load of that moment (a plan is kept;
    each planned step runs its parts on the threads free then: loops.follow_share)."""
    global _share
    saved, _share = _share, _quiet_share
    try:
        yield
    finally:
        _share = saved


def work_parts():
    """Parts a kernel that splits its work (a large GEMM's rows) divides it into: the threads its
    device has on a quiet machine, however many the load leaves it now, so that a run's numbers do
    not change with the load (a BLAS may round a row differently in a block of another height)."""
    return _quiet_share


def pool_calls_blas():
    """True when pe's loops can call numpy's BLAS GEMM per thread (float32 and float64)."""
    global _pool_blas
    if _pool_blas is None:
        _pool_blas = cblas.gemm(np.dtype(np.float32)) is not None and cblas.gemm(np.dtype(np.float64)) is not None
    return _pool_blas


def for_gemm(macs):
    """Called before a GEMM of ``macs`` multiply-adds that numpy runs (one BLAS call): BLAS gets the
    device's share for a large one, one thread for a small one. A comparison when nothing changes."""
    n = _blas_share
    if n is None:
        return
    want = n if macs >= SMALL_GEMM_MACS else 1
    if want != _applied:
        _set_blas(want)


def refresh():
    """Forgets what was read from the environment and set, so the next run applies the rule anew."""
    global _applied, _share, _quiet_share, _blas_share, _cores_taken, _load, _load_read_at, _free
    _planned.clear()
    _applied, _share, _quiet_share, _blas_share, _free = None, 1, 1, None, None
    _cores_taken, _load, _load_read_at = 0, None, 0.0


def before_fork():
    """In a process about to fork single-threaded workers (data/hogwild.py): BLAS at one thread now,
    so that the workers inherit it (see one_thread_after_fork)."""
    if not user_sets_blas() and _applied != 1:
        _set_blas(1)


def one_thread_after_fork():
    """In a forked worker: its kernels use one thread from now on (``PE_DEVICE_THREADS=1``). BLAS
    is left as the parent set it (before_fork): OpenBLAS stops its threads at a fork, and setting its
    thread count, even to one, starts them again, spinning for ~0.1 s on the cores the other workers
    compute on (measured: 4 ms stalls every 3 steps over a worker's first 40 steps)."""
    global _applied
    os.environ["PE_DEVICE_THREADS"] = "1"
    applied = _applied
    refresh()
    _applied = applied


def describe(devices=1):
    """One line for logs and benchmarks: the cores, devices and threads in use."""
    share = device_threads(devices)
    if user_sets_blas():
        blas = "BLAS threads left to the environment"
    elif pool_calls_blas():
        blas = f"GEMMs ({cblas.source()}) and loops on numba's threads, BLAS single-threaded"
    else:
        blas = "large GEMMs on BLAS threads, numba loops single-threaded"
    return f"{cores()} core(s), {devices} CPU device(s), {share} thread(s) per device: {blas}"


def _set_blas(n):
    global _applied
    with _lock:
        if n != _applied:
            for lib in _blas_libraries():
                lib.set_num_threads(n)
            _applied = n


def _blas_libraries():
    global _blas
    if _blas is None:
        try:
            import threadpoolctl
        except ImportError:  # the dependency is missing: BLAS keeps its own default
            _blas = []
            return _blas
        controller = threadpoolctl.ThreadpoolController()
        _blas = [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
    return _blas


def _positive(name, value):
    try:
        n = int(value)
        if n < 1:
            raise ValueError
    except ValueError:
        raise PeError(f"{name}={value!r} must be a positive integer") from None
    return n
