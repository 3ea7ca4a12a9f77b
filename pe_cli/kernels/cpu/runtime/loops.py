"""numba, on first use only.

The numba loops of the CPU kernels live in private modules (``_conv_loops``, ``_pointwise_loops``)
that import numba at their top. A kernel module reaches them through ``lazy("_conv_loops")()``, so
``import pe_cli``, ``pe --help`` and programs whose ops need no numba loop never pay numba's import
(about 0.3 s) or its compilation. Every loop is ``@njit(cache=True, nogil=True)``: compiled once per
argument types and kept in numba's cache in pe's per-user cache folder (``$XDG_CACHE_HOME/pe/numba``,
read only where pe wrote it: numba_cache.py), and run without the GIL so executor threads overlap.

The heavy loops (convolutions, large GEMMs) have ``parallel=True`` twins that spread samples or
rows over numba's threads, each part calling numpy's BLAS single-threaded (cblas.py): one thread
pool for the whole machine. ``parallel_threads()`` says whether the kernel running now may use
them: when its device has several cores (pe_cli/kernels/cpu/runtime/threads.py) and numba has a thread-safe layer
(OpenMP or TBB; numba's own ``workqueue`` aborts when two executor threads enter parallel loops at
once, and its sleeping workers were measured to wake too slowly). OpenMP is picked first.
"""

import importlib
import os
import sys
import threading
import time

import numpy as np

from . import call_types, compile_helper, numba_cache, threads

_setup_lock = threading.Lock()
_layer_ok = None  # a thread-safe numba threading layer is available (decided once)

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)

_KERNELS = __package__.rpartition(".")[0]  # the CPU kernels, whose loop modules lazy() imports


def lazy(name):
    """A function returning the loops module ``pe_cli.kernels.cpu.<name>``, imported on its first call."""
    module = None

    def get():
        nonlocal module
        if module is None:
            _choose_layer()
            module = importlib.import_module(f"{_KERNELS}.{name}")
        return module

    return get


def _choose_layer():
    """Picks numba's threading layer before any parallel loop runs: OpenMP, else TBB; without either
    the parallel twins are not used. First points numba's cache at pe's checked folder (numba_cache.py)."""
    global _layer_ok
    numba_cache.install()
    if _layer_ok is not None:
        return
    with _setup_lock:
        if _layer_ok is not None:
            return
        import numba

        chosen = os.environ.get("NUMBA_THREADING_LAYER")
        if chosen:  # the user's choice stands; parallel loops only if it is thread-safe
            _layer_ok = chosen in ("omp", "tbb", "threadsafe", "forksafe")
            return
        for layer, module in (("omp", "omppool"), ("tbb", "tbbpool")):
            try:
                importlib.import_module(f"numba.np.ufunc.{module}")
            except (ImportError, OSError):
                continue
            numba.config.THREADING_LAYER = layer
            _layer_ok = True
            return
        _layer_ok = False


def parallel_threads():
    """Threads the parallel twin of a loop may use in the kernel running now, or 1 (use the serial
    loop): the device's share of the cores, when pe's pool does the GEMMs and a thread-safe layer
    exists. Sets numba's thread count for the calling thread (numba keeps it per thread)."""
    n = threads.kernel_threads()
    if n <= 1 or not threads.pool_calls_blas():
        return 1
    _choose_layer()
    if not _layer_ok:
        return 1
    import numba

    n = min(n, numba.config.NUMBA_NUM_THREADS)
    _use_threads(numba, n)
    return n


_numba_count = threading.local()  # numba's thread count as pe last set it for the thread (numba keeps one a thread)


def _use_threads(numba, n):
    """numba's thread count for the calling thread set to ``n`` (numba's get_num_threads costs 2 us: its count
    is asked once, then what pe set is remembered)."""
    if getattr(_numba_count, "n", None) != n:
        if numba.get_num_threads() != n:
            numba.set_num_threads(n)
        _numba_count.n = n


def follow_share():
    """Before a planned step's segments run in the calling thread: numba's thread count for it set to
    the device's share of the cores now (1 where the other processes leave one core). A parallel twin
    a plan launches splits its work into the parts decided when it was planned, on a quiet host
    perhaps; its parts then run on the threads free now, never waiting for a busy core (each element,
    row or sample computed alike: the same bits)."""
    if not _layer_ok or "numba" not in sys.modules:
        return  # (no parallel twin was planned: the layer is chosen on the first)
    import numba

    _use_threads(numba, max(1, min(threads.kernel_threads(), numba.config.NUMBA_NUM_THREADS)))


def is_float(*arrays):
    """True when every array is float32 or float64, all of the same dtype: the types the loops are
    compiled for. Other dtypes take the kernels' numpy path."""
    dtype = arrays[0].dtype
    if dtype != _F32 and dtype != _F64:  # (dtype.name is a Python property: slower)
        return False
    for a in arrays[1:]:
        if a.dtype != dtype:
            return False
    return True


def twin(serial, parallel, use_parallel, *args, replica=None):
    """The loop to run on ``args``: ``parallel`` when ``use_parallel`` and it is ready for them
    (``parallel_ready``), else ``serial``, or while ``serial`` compiles, its ``replica``
    (``loop_or``)."""
    if use_parallel and parallel_ready(parallel, *args):
        return parallel
    return loop_or(replica, serial, *args)


def loop_or(replica, loop, *args):
    """``loop`` when it can run on ``args`` without a wait for numba: compiled in this process or in
    numba's cache. Else, on a first run on a machine, ``replica``: numpy computing the same bits
    (_replicas.py), while a helper process compiles ``loop`` into numba's cache (compile_helper.py); the
    loop is used from the call after it is ready. Where no helper can (a forked worker,
    ``PE_COMPILE_HELPER=0``, a loop numba cannot cache), ``loop``: its call compiles it."""
    if replica is None or loop.overloads or EAGER:
        return loop
    return loop if _compiled_later.ready(loop, args, first=True) else replica


def parallel_ready(twin, *args):
    """True when the parallel twin ``twin`` (a numba dispatcher) can run on ``args`` now: compiled
    in this process, or found in numba's cache. A first run on a machine does not wait for it: a
    parallel twin takes 3-10x longer to compile than its serial loop (LeNet-5's conv twins: 6 s of
    a 11 s first step), so this returns False, the caller runs the serial loop, and the twin is
    compiled by the helper process after the serial loops (else in a thread of this process once
    it has stopped compiling serial loops); it is used from then on, and numba caches it for the
    next runs. Only twins that compute exactly what their serial loop computes (each element, row
    or sample by one thread) take this path, so the numbers never depend on which one ran."""
    if twin.overloads or EAGER:
        return True
    return _compiled_later.ready(twin, args)


DEFERRED = []  # callables(count): a loop was handed to the helper (kernels/compile_watch.py)
EAGER = False  # True: every loop compiles on its first call, as numba would (tests of the loops)


class _Later:
    """Parallel twins waiting to be compiled, and the thread that compiles them once no other thread
    has compiled for ``QUIET_S`` (so that it never holds up a serial loop a step needs)."""

    QUIET_S = 0.5

    def __init__(self):
        self.lock = threading.Lock()
        self.waiting = {}  # id(twin) -> (twin, signature)
        self.thread = None
        self.others = {}  # thread id -> depth of the compiles under way in other threads
        self.last = time.monotonic()
        self.hurry = False  # finish(): compile at once
        self.helper = compile_helper.Helper()

    def finish(self):
        """Waits until every loop asked for is compiled (and so in numba's cache)."""
        self.helper.finish()
        self.hurry = True
        thread = self.thread
        if thread is not None:
            thread.join()

    def on_start(self, ev):
        if threading.current_thread() is not self.thread:
            me = threading.get_ident()
            self.others[me] = self.others.get(me, 0) + 1

    def on_end(self, ev):
        me = threading.get_ident()
        if me in self.others:  # (a compile that began before the listener did is not counted)
            self.others[me] -= 1
            if not self.others[me]:
                del self.others[me]
            self.last = time.monotonic()

    def ready(self, loop, args, first=False):
        """True when ``loop`` can run on ``args`` now. Else False, and it is queued: for the helper
        process when it can take it (``first``: a serial loop, ahead of the twins), else, for a
        twin, for this process's thread; a serial loop no helper can take compiles on its call."""
        with self.lock:
            sig = tuple(loop.typeof_pyval(a) for a in args)
            key = (id(loop), sig)
            if key in self.waiting or (self.helper.mine() and self.helper.waiting(key)):
                return False
            answered = self.helper.done.pop(key, None)
            if _load_cached(loop, sig):
                return True
            spec = None
            if answered is None and _cacheable(loop) and self.helper.usable():
                spec = call_types.spec_of(args)
            if spec is not None:
                self.helper.ask(key, loop, module_name(loop), spec, first)
                for listener in DEFERRED:
                    listener(self.helper.sent)
                return False
            if first:
                return True
            self.waiting[key] = (loop, sig)
            if self.thread is None:
                self.thread = threading.Thread(target=self._compile, name="pe-parallel-twins", daemon=True)
                self.thread.start()
        return False

    def _compile(self):
        from numba.core import event

        listener = _Listener(self)
        event.register("numba:compile", listener)
        try:
            while self._compile_next():
                pass
        finally:
            event.unregister("numba:compile", listener)

    def _compile_next(self):
        """Waits for quiet, compiles one waiting twin; False when none is left (the thread ends)."""
        self.last = time.monotonic()
        while not self.hurry and (self.others or time.monotonic() - self.last < self.QUIET_S):
            time.sleep(0.05)
        with self.lock:
            if not self.waiting:
                self.thread = None
                return False
            key = next(iter(self.waiting))
            twin, sig = self.waiting[key]
        try:
            twin.compile(sig)
        except Exception:  # noqa: BLE001 - the serial loop stays in use; the error shows if called
            pass
        with self.lock:
            self.waiting.pop(key, None)
        return True


class _Listener:
    """numba's compile events, passed to a _Later (an event.Listener, made when numba is loaded)."""

    def __new__(cls, later):
        from numba.core import event

        class Listener(event.Listener):
            def on_start(self, ev):
                later.on_start(ev)

            def on_end(self, ev):
                later.on_end(ev)

        return Listener()


def _cacheable(loop):
    """True when numba caches ``loop`` (``cache=True``) and the helper can find it: a module-level
    name is bound to it (``module_name``)."""
    cache = getattr(loop, "_cache", None)
    return cache is not None and type(cache).__name__ != "NullCache" and module_name(loop) is not None


_names = {}  # id(dispatcher) -> the name its module binds it to


def module_name(loop):
    """The name ``loop``'s module binds it to, or None: its function's own name, or, for a loop
    made by a function (a twin, _blas_loops.py), the name the module gives the dispatcher."""
    name = _names.get(id(loop))
    if name is None:
        module = sys.modules.get(loop.py_func.__module__)
        found = getattr(module, loop.py_func.__name__, None) is loop
        name = loop.py_func.__name__ if found else next((n for n, v in vars(module or object).items() if v is loop), "")
        _names[id(loop)] = name
    return name or None


def _load_cached(twin, sig):
    """Loads ``twin``'s compiled ``sig`` from numba's cache, as its first call would: True when found."""
    from numba.core.compiler_lock import global_compiler_lock

    try:
        with global_compiler_lock:
            cres = twin._cache.load_overload(sig, twin.targetctx)
            if cres is None:
                return False
            if not cres.objectmode:
                twin.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            twin.add_overload(cres)
            return True
    except AttributeError:  # another numba's internals: compile on the call, as before
        return True


_compiled_later = _Later()
finish_pending = _compiled_later.finish


def settle_background_compiles():
    """Waits for the background compiles under way in this process, if any (before a fork: a thread
    holding numba's compiler lock at the fork would leave the child's copy of that lock taken
    forever). The helper process needs no wait: a forked child does not use it (compile_helper.py)."""
    later = _compiled_later
    if later.thread is not None:
        hurry, later.hurry = later.hurry, True
        later.finish()
        later.hurry = hurry


PARALLEL_MIN_ELEMENTS = 1 << 17  # below this a parallel loop's start-up costs more than it saves (measured)
# momentum's in-place update splits from a quarter of that: a parameter's rows are then updated by
# the threads whose GEMMs computed their gradient (math.split_mode), not all by one thread that must
# first take the other core's lines: the MLP's 256 x 256 weight (65,536 values) 50 -> 32 us on 2
# threads (benchmarks/weight_rows.py --shape 128,256,256 with 1 << 17, then this), the MLP's step
# 1.10 -> 1.04 ms (median of 400 steps, Xeon VM, 2026-11-25)
UPDATE_PARALLEL_MIN_ELEMENTS = 1 << 15


def parallel_parts(size, least=None):
    """Chunks for the parallel twin of a pointwise loop over ``size`` elements, or 1 (the serial loop);
    ``least``: the fewest elements split (default PARALLEL_MIN_ELEMENTS)."""
    if size < (PARALLEL_MIN_ELEMENTS if least is None else least):
        return 1
    return parallel_threads()


def run_in_parts(loops, name, size, *args, replica=None, least=None):
    """The loop ``loops.<name>`` on ``args``, or its parallel twin ``<name>_parallel`` on ``args`` and a
    number of parts where ``size`` elements are worth splitting (parallel_parts, with ``least``) and
    the twin is ready (parallel_ready); returns what the loop returns. With a ``replica``
    (_replicas.py), a first run runs it while the loop compiles (loop_or)."""
    parts = parallel_parts(size, least)
    if parts > 1:
        parallel = getattr(loops, name + "_parallel")
        if parallel_ready(parallel, *args, parts):
            return parallel(*args, parts)
    return loop_or(replica, getattr(loops, name), *args)(*args)


_pointwise = lazy("_pointwise_loops")


def add_same(x, y, out):
    """out = x + y for float arrays of the same shape and dtype (out C-contiguous; it may be x or y):
    in contiguous chunks on the device's threads when large (add_parallel), else numpy's add. One
    core's add runs at its own bandwidth, about half of what two reach; the sums are the same bits."""
    parts = parallel_parts(out.size)
    if parts > 1:
        args = (flat(x), flat(y), out.reshape(-1), parts)
        if parallel_ready(_pointwise().add_parallel, *args):
            _pointwise().add_parallel(*args)
            return out
    np.add(x, y, out=out)
    return out


def out_buffer(ctx, x, shape, dtype):
    """Where a kernel writes an output of ``shape`` and ``dtype``: over its input ``x`` when the
    enable_inplace pass allows it (``ctx.inplace``: x is dead after this op and nothing else
    holds it) and x is a writable C-contiguous array of that shape and dtype; else a new array."""
    if (
        ctx.inplace
        and isinstance(x, np.ndarray)
        and x.shape == tuple(shape)
        and x.dtype == dtype
        and x.flags.c_contiguous
        and x.flags.writeable
    ):
        return x
    return np.empty(shape, dtype=dtype)


def flat(a):
    """a as a 1-D C-contiguous array (a view when a is contiguous)."""
    return np.ascontiguousarray(a).reshape(-1)
