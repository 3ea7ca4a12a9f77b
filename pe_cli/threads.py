"""How many threads each part of a CPU run uses: sized together, so that they do not fight.

The rule (docs/PERFORMANCE.md has the measurements behind it):

- ``cores``: the CPUs this process may run on (its affinity mask), or ``PE_NUM_THREADS``.
- ``devices``: the CPU devices running at once: 1 for ``Executor``, N for data parallelism
  (``ParallelExecutor`` / ``CompiledProgram.with_data_parallel`` on N ``CPUPlace``s, ``CPU_NUM=N``).
- Each device gets ``max(1, cores // devices)`` cores, which its kernels' BLAS calls (numpy's
  GEMMs in mul, matmul and conv2d) use as threads: one device has the whole machine, and one
  device per core (the default for data parallelism) runs its GEMMs on its own thread.
  ``PE_BLAS_THREADS`` sets that count instead. A GEMM of fewer than ``SMALL_GEMM_MACS``
  multiply-adds runs on one thread: there a second thread cost more than it brought (measured:
  LeNet-5's step was 10-20% slower with 2 BLAS threads, the MLP's 30% faster).
- numba loops are single-threaded and release the GIL (pe_cli/kernels/cpu/_numba.py): the cores
  are shared out by devices and BLAS threads, never by a third pool on top.
- The data-parallel executor runs each device's ops on the pool (``ExecutionStrategy.num_threads``,
  by default ``devices * 4``); its threads mostly wait for the GIL or a kernel, and since kernels run
  with the GIL released, at most ``devices`` kernels (each with its BLAS threads) run at once in the
  steady state.

pe changes the BLAS thread count at run time (threadpoolctl: OpenBLAS, MKL, BLIS) and only where
the user has not chosen it: when ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` or
``OMP_NUM_THREADS`` is set, or ``PE_BLAS_THREADS=0``, BLAS is left as it is.
"""
import os
import threading

_USER_BLAS_VARS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")

_lock = threading.Lock()
_blas = None            # threadpoolctl controllers of the loaded BLAS libraries, found on first use
_applied = None         # the BLAS thread count last set
_planned = {}           # devices -> blas_threads(devices): the environment is read once
_device_blas = None     # the BLAS threads of the devices now running (None: BLAS left alone)
SMALL_GEMM_MACS = 4 << 20


def cores():
    """The cores pe uses: ``PE_NUM_THREADS``, else the CPUs this process may run on."""
    value = os.environ.get("PE_NUM_THREADS")
    if value:
        return _positive("PE_NUM_THREADS", value)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):        # not on Linux
        return os.cpu_count() or 1


def per_device(devices):
    """Cores for each of ``devices`` CPU devices running at once."""
    return max(1, cores() // max(1, devices))


def blas_threads(devices):
    """The BLAS threads each device's kernels use: ``PE_BLAS_THREADS``, else ``per_device``;
    None when BLAS is left alone (the user set its own variable, or ``PE_BLAS_THREADS=0``)."""
    value = os.environ.get("PE_BLAS_THREADS")
    if value is not None and value.strip() != "":
        n = _non_negative("PE_BLAS_THREADS", value)
        return n or None
    if any(os.environ.get(v) for v in _USER_BLAS_VARS):
        return None
    return per_device(devices)


def use_devices(devices):
    """Sizes BLAS for ``devices`` CPU devices running at once. Called by the executors before each
    run; costs a dict lookup when nothing changes (the environment is read on the first call for
    each device count; ``refresh()`` reads it again)."""
    global _device_blas
    n = _planned.get(devices, 0)
    if n == 0:
        n = _planned[devices] = blas_threads(devices)
    _device_blas = n
    if n is not None and (_applied is None or (n == 1 and _applied != 1)):
        _set_blas(n)            # GEMM kernels size each call (for_gemm); others get the device's count


def for_gemm(macs):
    """Called by a kernel before a GEMM of ``macs`` multiply-adds (per BLAS call): the device's BLAS
    threads for a large one, one thread for a small one. A comparison when nothing changes."""
    n = _device_blas
    if n is None or n == 1:
        if n == 1 and _applied != 1:
            _set_blas(1)
        return
    want = n if macs >= SMALL_GEMM_MACS else 1
    if want != _applied:
        _set_blas(want)


def _set_blas(n):
    global _applied
    with _lock:
        if n != _applied:
            for lib in _blas_libraries():
                lib.set_num_threads(n)
            _applied = n


def refresh():
    """Forgets what was read from the environment and set, so the next run applies the rule anew."""
    global _applied, _device_blas
    _planned.clear()
    _applied = _device_blas = None


def describe(devices=1):
    """One line for logs and benchmarks: the cores, devices and BLAS threads in use."""
    n = blas_threads(devices)
    blas = "BLAS threads left to the environment" if n is None else f"{n} BLAS thread(s) per device"
    return f"{cores()} core(s), {devices} CPU device(s), {blas}, numba loops single-threaded"


def _blas_libraries():
    global _blas
    if _blas is None:
        try:
            import threadpoolctl
        except ImportError:      # the dependency is missing: BLAS keeps its own default
            _blas = []
            return _blas
        controller = threadpoolctl.ThreadpoolController()
        _blas = [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
    return _blas


def _positive(name, value):
    n = _non_negative(name, value)
    if n == 0:
        from .errors import PeError
        raise PeError(f"{name}={value!r} must be a positive integer")
    return n


def _non_negative(name, value):
    try:
        n = int(value)
        if n < 0:
            raise ValueError
    except ValueError:
        from .errors import PeError
        raise PeError(f"{name}={value!r} must be a non-negative integer") from None
    return n
