"""Hogwild: N workers train one program on shared parameters without locks (seed 004's
AsyncExecutor threads; Fluid's ``train_from_dataset``; ``exec_strategy: {mode: async}``).

Fluid's workers were C++ threads. pe's kernels release the GIL, but each step's ops are dispatched
from Python, which holds it: on a small model such as the bundled CTR one, most of a step is
dispatch, and two threads ran at 0.7-0.96x the speed of one. With ``PE_ASYNC_WORKERS=processes``
(Linux), each worker is a forked **process**, and two train the CTR model 1.84x as fast as one (the
machine's ceiling, two independent copies of the 1-thread pass, was 1.91x in the same run;
benchmarks/async_threads.py). It is not the default: in 4 of about 30 runs of
examples/async_executor.py with 2 process workers (Adam), every parameter became NaN within one step
(the shared values finite the step before), a cause not yet found; on threads that never happened:

- before the fork, every persistable variable the program has in the scope (parameters,
  optimizer moments, learning rates, step counters) is moved into memory the processes share;
- each worker runs its parts with its own Executor; after every step it writes what the step
  rebound back into the shared memory, so every worker and the caller see each update, without
  locks, as Fluid's threads did (an in-place update, such as a lazy sparse Adam's, writes there
  directly);
- a worker sends the lines it prints and the values the caller collects to this process over a
  pipe (so they reach the caller's ``sys.stdout``, redirected or not); the first error of any
  worker stops the others (they are killed) and is raised here, naming the worker;
- each worker computes on one core (kernels/cpu/threads.py ``one_thread_after_fork``): numba's
  OpenMP pool cannot be used after a fork, and Hogwild's parallelism is the workers. Use one worker
  per core.

By default, with one worker, on other systems (fork is unsafe on macOS, absent on Windows) and under
MPI, the workers are threads of this process on the same scope. One worker is exactly a sequential
Executor over the same batches.
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

from ..errors import PeError
from ..executor import Executor
from ..kernels.cpu import threads as cpu_threads
from ..kernels.cpu._numba import settle_background_compiles

_HEADER = struct.Struct("<cQ")          # message kind, payload length
_WHERE = struct.Struct("<QQ")           # a collected value's part index and batch number


class Job:
    """What the workers run: ``program`` on each batch ``batches_of(part)`` yields, for every part of
    ``parts`` (each to the first worker free to take it), fetching ``fetch``. ``show(worker, part, k, values)``
    returns a line to print (or None); with ``collect`` the fetched values come back."""

    def __init__(self, program, parts, batches_of, place, scope, fetch, show=None, collect=False):
        self.program, self.parts, self.batches_of = program, list(parts), batches_of
        self.place, self.scope, self.fetch, self.show, self.collect = place, scope, fetch, show, collect
        self._taken = multiprocessing.Value("q", 0)        # parts handed out (in memory the workers share)

    def work(self, worker, workers, emit, stopped, after_step=None):
        exe = Executor(self.place)
        exe._concurrent = workers
        while not stopped():
            i = self.next_part()
            if i is None:
                return
            part = self.parts[i]
            for k, batch in enumerate(self.batches_of(part)):
                if stopped():
                    return
                values = exe.run(self.program, feed=batch, fetch_list=self.fetch, scope=self.scope)
                if after_step is not None:
                    after_step()
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
    workers = max(1, min(workers, len(job.parts)))
    job._taken.value = 0
    results = [[] for _ in job.parts]
    if workers > 1 and _use_processes():
        _processes(job, workers, results)
    else:
        _threads(job, workers, results)
    return results if job.collect else None


def _use_processes():
    choice = os.environ.get("PE_ASYNC_WORKERS", "threads")
    if choice not in ("processes", "threads"):
        raise PeError(f"PE_ASYNC_WORKERS is '{choice}'; set it to processes or threads")
    mpi = sys.modules.get("mpi4py.MPI")
    under_mpi = mpi is not None and mpi.Is_initialized()
    return choice == "processes" and sys.platform.startswith("linux") and not under_mpi


def _error(worker, e):
    return e if isinstance(e, PeError) else PeError(f"Hogwild worker {worker}: {type(e).__name__}: {e}")


# -- threads -----------------------------------------------------------------------------------------

def _threads(job, workers, results):
    stop, lock, errors = threading.Event(), threading.Lock(), []

    def emit(kind, payload):
        if kind == b"P":
            with lock:
                print(payload, flush=True)
        else:
            i, _, values = payload
            results[i].append(values)

    def thread(w):
        try:
            job.work(w, workers, emit, stop.is_set)
        except BaseException as e:      # noqa: BLE001 - the first error stops every thread and is raised below
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
    shared = _share(job.program, job.scope)
    settle_background_compiles()        # no thread of this process may hold numba's lock at the fork
    cpu_threads.before_fork()
    sys.stdout.flush()
    sys.stderr.flush()
    children = []                       # (pid, read end of its pipe)
    try:
        for w in range(workers):
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read)
                for _, other in children:
                    os.close(other)
                _child(job, w, workers, write, shared)
            os.close(write)
            children.append((pid, read))
        _gather(job, children, results)
    finally:
        for pid, read in children:      # after an error here or in a worker, none is left running
            _kill(pid)
        for name, var, array in shared:
            var.tensor._array = np.array(array)     # the caller's scope keeps the trained values


def _share(program, scope):
    """Moves the persistable arrays ``program`` has in ``scope`` into shared memory: [(name, var, array)]."""
    shared, seen = [], set()
    program = getattr(program, "_program", program)        # a CompiledProgram's Program
    for block in program.blocks:
        for var in block.vars.values():
            held = scope.find_var(var.name) if var.persistable and var.name not in seen else None
            array = None if held is None else held.tensor._array
            if not isinstance(array, np.ndarray) or not array.nbytes:
                continue
            seen.add(var.name)
            memory = np.frombuffer(mmap.mmap(-1, array.nbytes), array.dtype, array.size).reshape(array.shape)
            memory[...] = array
            held.tensor._array = memory
            shared.append((var.name, held, memory))
    return shared


def _child(job, worker, workers, pipe, shared):
    """A worker process: runs its parts, sends what it prints and collects, and exits (never returns)."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)       # a Ctrl-C is the caller's to handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        cpu_threads.one_thread_after_fork()

        def write_back():
            for _, var, memory in shared:
                if var.tensor._array is not memory:
                    np.copyto(memory, var.tensor._array)
                    var.tensor._array = memory
        job.work(worker, workers, lambda kind, payload: _send(pipe, kind, payload), lambda: False, write_back)
    except BaseException as e:          # noqa: BLE001 - reported to the caller, which raises it
        code = 1
        try:
            _send(pipe, b"E", str(_error(worker, e)))
        except BaseException:           # noqa: BLE001 - the caller reports the exit status instead
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:       # noqa: BLE001
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
        view = view[os.write(pipe, view):]


def _gather(job, children, results):
    """Reads the workers' pipes until every one has ended; raises the first error."""
    selector = selectors.DefaultSelector()
    pending = {}
    for w, (_, read) in enumerate(children):
        selector.register(read, selectors.EVENT_READ, w)
        pending[read] = b""
    try:
        _read_all(selector, pending, results)
    finally:
        for fd in pending:
            os.close(fd)
    for w, (pid, _) in enumerate(children):
        _, status = os.waitpid(pid, 0)
        if status:
            raise PeError(f"Hogwild worker {w} ended without finishing ({_status(status)}); "
                          f"run without PE_ASYNC_WORKERS=processes to see the error here")


def _read_all(selector, pending, results):
    while pending:
        for key, _ in selector.select():
            chunk = os.read(key.fd, 1 << 16)
            if not chunk:
                selector.unregister(key.fd)
                os.close(key.fd)
                del pending[key.fd]
                continue
            buffer = pending[key.fd] + chunk
            while len(buffer) >= _HEADER.size:
                kind, size = _HEADER.unpack_from(buffer)
                if len(buffer) < _HEADER.size + size:
                    break
                data, buffer = buffer[_HEADER.size:_HEADER.size + size], buffer[_HEADER.size + size:]
                error = _take(kind, data, results)
                if error is not None:
                    raise error
            pending[key.fd] = buffer


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
    except ChildProcessError:       # already reaped by _gather
        pass
