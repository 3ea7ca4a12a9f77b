"""Hogwild: N workers train one program on shared parameters without locks (seed 004's
AsyncExecutor threads; Fluid's ``train_from_dataset``; ``exec_strategy: {mode: async}``).

Fluid's workers were C++ threads. pe's kernels release the GIL, but each step's ops are dispatched
from Python, which holds it: on a small model such as the bundled CTR one, most of a step is
dispatch, and two threads ran at 0.7-0.99x the speed of one. So on Linux each worker is a forked
**process**, and two train the CTR model about 1.8x as fast as one thread (the machine's ceiling, two
independent copies of the 1-thread pass, about 1.9x in the same run; benchmarks/async_threads.py):

- before the fork, every persistable variable the program has in the scope (parameters,
  optimizer moments, learning rates, step counters) is moved into memory the processes share;
- each worker runs its parts with its own Executor. A step starts from a consistent copy of the
  shared values and adds what it changed to them (``_Shared.landings``): the steps run at once,
  without locks; only the copy and the addition are taken in turn;
- a worker sends the lines it prints and the values the caller collects to this process over a
  pipe (so they reach the caller's ``sys.stdout``, redirected or not); the first error of any
  worker stops the others (they are killed) and is raised here, naming the worker;
- each worker computes on one core (kernels/cpu/runtime/threads.py ``one_thread_after_fork``): numba's
  OpenMP pool cannot be used after a fork, and Hogwild's parallelism is the workers. Use one worker
  per core.

With one worker, with ``PE_ASYNC_WORKERS=threads``, on other systems (fork is unsafe on macOS,
absent on Windows), off the CPU and under MPI, the workers are threads of this process on the same
scope. One worker is exactly a sequential Executor over the same batches.
"""

import io
import mmap
import multiprocessing
import os
import selectors
import signal
import struct
import sys
import threading

import numpy as np

from ..base.errors import PeError
from ..base.limits import check
from ..executor import Executor
from ..base.places import CPUPlace
from ..kernels.cpu.runtime import threads as cpu_threads
from ..kernels.cpu.runtime.loops import settle_background_compiles

_HEADER = struct.Struct("<cQ")  # message kind, payload length
_WHERE = struct.Struct("<QQ")  # a collected value's part index and batch number


class Job:
    """What the workers run: ``program`` on each batch ``batches_of(part)`` yields, for every part of
    ``parts`` (each to the first worker free to take it), fetching ``fetch``. ``show(worker, part, k, values)``
    returns a line to print (or None); with ``collect`` the fetched values come back."""

    def __init__(self, program, parts, batches_of, place, scope, fetch, show=None, collect=False):
        self.program, self.parts, self.batches_of = program, list(parts), batches_of
        self.place, self.scope, self.fetch, self.show, self.collect = place, scope, fetch, show, collect
        self._taken = multiprocessing.Value("q", 0)  # parts handed out (in memory the workers share)

    def work(self, worker, workers, emit, stopped, around_step=(None, None)):
        exe = Executor(self.place)
        exe._concurrent = workers
        before, after = around_step
        while not stopped():
            i = self.next_part()
            if i is None:
                return
            part = self.parts[i]
            for k, batch in enumerate(self.batches_of(part)):
                if stopped():
                    return
                if before is not None:
                    before()
                values = exe.run(self.program, feed=batch, fetch_list=self.fetch, scope=self.scope)
                if after is not None:
                    after()
                line = self.show(worker, part, k, values) if self.show else None
                if line is not None:
                    emit(b"P", line)
                if self.collect:
                    emit(b"V", (i, k, values))

    def next_part(self):
        """The index of the next part not yet taken, or None: a worker takes the next part when it
        has finished its last, as Fluid's DataFeed picks its next file from the shared list, so a
        worker slowed by the machine does less of the work instead of making the others wait."""
        with self._taken.get_lock():
            i = self._taken.value
            if i >= len(self.parts):
                return None
            self._taken.value = i + 1
            return i


def run(job, workers):
    """Runs ``job`` on ``workers`` workers (at most one per part); returns, when ``job.collect``,
    each part's list of fetched values per batch."""
    workers = max(1, min(check("threads", workers, "thread_num"), len(job.parts)))
    job._taken.value = 0
    results = [[] for _ in job.parts]
    if workers > 1 and _use_processes(job.place):
        _processes(job, workers, results)
    else:
        _threads(job, workers, results)
    return results if job.collect else None


def _use_processes(place):
    choice = os.environ.get("PE_ASYNC_WORKERS", "processes")
    if choice not in ("processes", "threads"):
        raise PeError(f"PE_ASYNC_WORKERS is '{choice}'; set it to processes or threads")
    mpi = sys.modules.get("mpi4py.MPI")
    under_mpi = mpi is not None and mpi.Is_initialized()
    return choice == "processes" and sys.platform.startswith("linux") and isinstance(place, CPUPlace) and not under_mpi


def _error(worker, e):
    return e if isinstance(e, PeError) else PeError(f"Hogwild worker {worker}: {type(e).__name__}: {e}")


# -- threads -----------------------------------------------------------------------------------------


def _threads(job, workers, results):
    stop, lock, errors = threading.Event(), threading.Lock(), []
    # A parameter-server trainer's step is one exchange with the servers (its gradients, a barrier,
    # the parameters back): the threads take turns, a whole step each.
    turns = threading.Lock() if getattr(job.program, "_pserver_trainer", False) else None
    around = (turns.acquire, turns.release) if turns is not None else (None, None)

    def emit(kind, payload):
        if kind == b"P":
            with lock:
                print(payload, flush=True)
        else:
            i, _, values = payload
            results[i].append(values)

    def thread(w):
        try:
            job.work(w, workers, emit, stop.is_set, around)
        except BaseException as e:  # noqa: BLE001 - the first error stops every thread and is raised below
            errors.append(_error(w, e))
            stop.set()

    pool = [threading.Thread(target=thread, args=(w,), name=f"pe-async-{w}") for w in range(workers)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]


# -- processes ---------------------------------------------------------------------------------------


def _processes(job, workers, results):
    shared = _Shared(job.program, job.scope)
    landing = multiprocessing.Lock()  # held to copy the shared values in or out (``_Shared.landings``)
    settle_background_compiles()  # no thread of this process may hold numba's lock at the fork
    cpu_threads.before_fork()
    sys.stdout.flush()
    sys.stderr.flush()
    children = []  # (pid, read end of its pipe)
    try:
        for w in range(workers):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                for _, other in children:
                    os.close(other)
                _child(job, w, workers, write, shared, landing)
            os.close(write)
            children.append((pid, read))
        _gather(job, children, results)
    finally:
        for pid, read in children:  # after an error here or in a worker, none is left running
            _kill(pid)
        shared.restore()  # the caller's scope keeps the trained values


class _Shared:
    """The persistable arrays ``program`` has in ``scope``, moved into one block of memory the worker
    processes share: first those the program writes, one run of each dtype (``runs``: (dtype, start,
    end, additive)), then those it only reads."""

    def __init__(self, program, scope):
        program = getattr(program, "_program", program)  # a CompiledProgram's Program
        writes = {n for block in program.blocks for op in block.ops for n in op.output_arg_names}
        found, seen = [], set()
        for block in program.blocks:
            for var in block.vars.values():
                held = scope.find_var(var.name) if var.persistable and var.name not in seen else None
                array = None if held is None else held.tensor._array
                if isinstance(array, np.ndarray) and array.nbytes:
                    seen.add(var.name)
                    found.append((var.name in writes, held, array))
        found.sort(key=lambda entry: (not entry[0], entry[2].dtype.str))
        end, self.entries, self.runs = 0, [], []  # entries: (var, offset, shared array, written)
        for written, held, array in found:
            if written and (not self.runs or self.runs[-1][0] != array.dtype):
                self.runs.append([array.dtype, end, end, array.dtype.kind in "fiuc"])
            if written:
                self.runs[-1][2] = end + array.nbytes
            self.entries.append((held, end, array, written))
            end += -(-array.nbytes // 64) * 64
        self.memory = np.frombuffer(mmap.mmap(-1, max(end, 64)), np.uint8)
        for i, (held, offset, array, written) in enumerate(self.entries):
            view = _view(self.memory, offset, array)
            view[...] = array
            held.tensor._array = view
            self.entries[i] = (held, offset, view, written)

    def restore(self):
        for held, _, view, _ in self.entries:
            held.tensor._array = np.array(view)

    def landings(self, lock):
        """(before, after) a worker's step. Before: the shared values the program writes are copied,
        in one piece, into the worker's own arrays, which the step reads and updates. After: what the
        step changed is added to the shared values, again in one piece (a value that is not a number,
        a bool, is replaced). ``lock`` is held for the copy and the addition only; steps run at once.

        So a step reads one consistent state, and no update is lost: Hogwild's ``p -= lr * g`` on
        the shared ``p``, as Fluid's threads applied it. Read directly from the shared memory while
        others wrote it, a step could take one update's Moment1 and an older Moment2 of 0 under it
        (a unit whose gradient had been 0 until then), and Adam stepped lr * m1 / epsilon: weights of
        100, then NaN, in 5 runs in 30 of examples/async_executor.py (none in 100 since). The copy
        and the addition take about 2 copies' time of the updated arrays (CTR model: ~3% of a step)."""
        end = self.runs[-1][2] if self.runs else 0
        base, mine = np.zeros(end, np.uint8), np.zeros(end, np.uint8)
        runs = [
            (
                additive,
                _typed(self.memory, dtype, start, stop),
                _typed(base, dtype, start, stop),
                _typed(mine, dtype, start, stop),
            )
            for dtype, start, stop, additive in self.runs
        ]
        own = [(held, _view(mine, offset, view)) for held, offset, view, written in self.entries if written]

        def before():
            with lock:
                np.copyto(base, self.memory[:end])
            np.copyto(mine, base)
            for held, array in own:
                held.tensor._array = array

        def after():
            for held, array in own:
                if held.tensor._array is not array:
                    np.copyto(array, held.tensor._array)
            for additive, _, was, now in runs:
                if additive:
                    np.subtract(now, was, out=now)  # the step's change
            with lock:
                for additive, shared, _, now in runs:
                    if additive:
                        shared += now
                    else:
                        np.copyto(shared, now)

        return before, after


def _view(buffer, offset, like):
    return buffer[offset : offset + like.nbytes].view(like.dtype).reshape(like.shape)


def _typed(buffer, dtype, start, stop):
    return buffer[start:stop].view(dtype)


def _child(job, worker, workers, pipe, shared, landing):
    """A worker process: runs its parts, sends what it prints and collects, and exits (never returns)."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the caller's to handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        cpu_threads.one_thread_after_fork()
        job.work(
            worker, workers, lambda kind, payload: _send(pipe, kind, payload), lambda: False, shared.landings(landing)
        )
    except BaseException as e:  # noqa: BLE001 - reported to the caller, which raises it
        code = 1
        try:
            _send(pipe, b"E", str(_error(worker, e)))
        except BaseException:  # noqa: BLE001 - the caller reports the exit status instead
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001
                pass
        os._exit(code)


def _send(pipe, kind, payload):
    if kind == b"V":
        i, k, values = payload
        out = io.BytesIO()
        out.write(_WHERE.pack(i, k))
        for v in values:
            np.lib.format.write_array(out, np.asarray(v), allow_pickle=False)
        data = out.getvalue()
    else:
        data = payload.encode()
    view = memoryview(_HEADER.pack(kind, len(data)) + data)
    while view:
        view = view[os.write(pipe, view) :]


def _gather(job, children, results):
    """Reads the workers' pipes until every one has ended; raises the first error, or the end of a
    worker that died (at once: the others are killed, and none waits on it)."""
    selector = selectors.DefaultSelector()
    pending = {}
    for w, (_, read) in enumerate(children):
        selector.register(read, selectors.EVENT_READ, w)
        pending[read] = b""
    try:
        _read_all(selector, pending, results, children)
    finally:
        for fd in pending:
            os.close(fd)


def _read_all(selector, pending, results, children):
    while pending:
        for key, _ in selector.select():
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
                del pending[key.fd]
                _ended(key.data, children[key.data][0])
                continue
            buffer = pending[key.fd] + chunk
            while len(buffer) >= _HEADER.size:
                kind, size = _HEADER.unpack_from(buffer)
                if len(buffer) < _HEADER.size + size:
                    break
                data, buffer = buffer[_HEADER.size : _HEADER.size + size], buffer[_HEADER.size + size :]
                error = _take(kind, data, results)
                if error is not None:
                    raise error
            pending[key.fd] = buffer


def _ended(worker, pid):
    """Worker ``worker``'s pipe has closed: it has exited (or is about to); raises unless it finished."""
    _, status = os.waitpid(pid, 0)
    if status:
        raise PeError(
            f"Hogwild worker {worker} ended without finishing ({_status(status)}); "
            f"run with PE_ASYNC_WORKERS=threads to see the error here"
        )


def _take(kind, data, results):
    if kind == b"E":
        return PeError(data.decode())
    if kind == b"P":
        print(data.decode(), flush=True)
    else:
        source = io.BytesIO(data)
        i, _ = _WHERE.unpack(source.read(_WHERE.size))
        values = []
        while source.tell() < len(data):
            values.append(np.lib.format.read_array(source, allow_pickle=False))
        results[i].append(values)
    return None


def _status(status):
    if os.WIFSIGNALED(status):
        return f"signal {os.WTERMSIG(status)}"
    return f"exit status {os.WEXITSTATUS(status)}"


def _kill(pid):
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except ChildProcessError:  # already reaped by _gather
        pass
