"""``multiprocess_reader`` of Fluid (``paddle.reader`` and ``fluid.io``): one forked process per
reader, their samples merged. ``use_pipe`` (the default) sends each sample as JSON text through a
pipe per process, taking one sample of each process in turn, as Fluid does (tuples arrive as lists;
a sample JSON cannot write, such as a numpy array, is the reader's error); otherwise the processes
put their samples, as Python objects, into one ``multiprocessing.Queue`` of ``queue_size``.

A reader that raises ends the merged reader with a ValueError naming the reader and its error (as
Fluid's "multiprocess reader raises an exception", with the cause); a process that dies without a
word (killed, crashed) is the same error with its exit status: never a wait without end. The
processes are ended when the merged reader ends or is dropped.

``workers_reader`` is the same queue for DataLoader's workers, with its ``timeout``: no message from
any worker in that many seconds ends the reader with a WaitTimeout naming the bound (Paddle 2.6.2 and
Fluid 1.8.5 take ``timeout`` as their poll interval and wait for ever). ``capped_workers`` caps a
worker count by the CPUs this process may use, with a warning."""

import json
import multiprocessing
import os
import queue as _queue
import sys
import time
import warnings

from ..base import limits
from ..base.errors import ReaderError, WaitTimeout

_PE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

__all__ = ["multiprocess_reader", "workers_reader", "capped_workers"]

_POLL_S = 0.2


def _error_text(e):
    return f"{type(e).__name__}: {e}"[:500]


def _read_into_pipe(reader, conn):
    try:
        for sample in reader():
            if sample is None:
                raise ValueError("sample has None")
            conn.send_bytes(json.dumps(["sample", sample]).encode())
        conn.send_bytes(json.dumps(["end"]).encode())
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which raises it
        conn.send_bytes(json.dumps(["error", _error_text(e)]).encode())
    finally:
        conn.close()


def _read_into_queue(index, reader, q):
    try:
        for sample in reader():
            if sample is None:
                raise ValueError("sample has None")
            q.put(("sample", index, sample))
        q.put(("end", index, None))
    except Exception as e:  # noqa: BLE001 -- reported to the parent, which raises it
        q.put(("error", index, _error_text(e)))
    q.close()
    q.join_thread()


def _failed(index, why):
    return ReaderError(f"multiprocess reader raises an exception: reader {index} {why}")


def _died(index, process):
    process.join(timeout=1.0)
    return _failed(index, f"ended without finishing (its process exited with status {process.exitcode})")


def _stop(processes):
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5.0)


def _receive(index, conn, process):
    """The next message of reader ``index``'s pipe; an error when its process is gone."""
    while not conn.poll(_POLL_S):
        if not process.is_alive() and not conn.poll(0):
            raise _died(index, process)
    try:
        return json.loads(conn.recv_bytes().decode())
    except (EOFError, OSError):
        raise _died(index, process) from None


def _pipe_reader(readers, context):
    def reader():
        conns, processes = [], []
        try:
            for r in readers:
                parent, child = context.Pipe(duplex=False)
                p = context.Process(target=_read_into_pipe, args=(r, child), daemon=True)
                p.start()
                child.close()
                conns.append(parent)
                processes.append(p)
            active = list(range(len(readers)))
            while active:
                for index in list(active):
                    message = _receive(index, conns[index], processes[index])
                    if message[0] == "sample":
                        yield message[1]
                    elif message[0] == "end":
                        active.remove(index)
                    else:
                        raise _failed(index, f"raised {message[1]}")
        finally:
            for conn in conns:
                conn.close()
            _stop(processes)

    return reader


def _timed_out(timeout, workers):
    return WaitTimeout(
        f"DataLoader: no batch came from its {workers} worker process(es) within timeout={timeout:g} s "
        f"(DataLoader's timeout); the workers are stopped (a dataset or collate_fn slower than that "
        f"needs a larger timeout; 0 waits without a bound)"
    )


def _queue_reader(readers, queue_size, context, timeout=0):
    def reader():
        q, processes = context.Queue(queue_size), []
        try:
            for index, r in enumerate(readers):
                p = context.Process(target=_read_into_queue, args=(index, r, q), daemon=True)
                p.start()
                processes.append(p)
            active = set(range(len(readers)))
            last = time.monotonic()
            while active:
                try:
                    kind, index, value = q.get(timeout=_POLL_S)
                except _queue.Empty:
                    for index in active:
                        if not processes[index].is_alive() and q.empty():
                            raise _died(index, processes[index]) from None
                    if timeout and time.monotonic() - last > timeout:
                        raise _timed_out(timeout, len(readers)) from None
                    continue
                last = time.monotonic()
                if kind == "sample":
                    yield value
                elif kind == "end":
                    active.discard(index)
                else:
                    raise _failed(index, f"raised {value}")
        finally:
            _stop(processes)
            q.close()
            q.cancel_join_thread()

    return reader


def multiprocess_reader(readers, use_pipe=True, queue_size=1000):
    """A reader of the samples of ``readers`` (a non-empty list), each read in its own process."""
    assert type(readers) is list and len(readers) > 0
    context = multiprocessing.get_context("fork")
    if use_pipe:
        return _pipe_reader(readers, context)
    return _queue_reader(readers, queue_size, context)


def workers_reader(readers, queue_size, timeout=0):
    """``multiprocess_reader(readers, use_pipe=False, queue_size)`` that ends with a WaitTimeout when
    no reader's process sends anything for ``timeout`` seconds (0: no bound)."""
    assert type(readers) is list and len(readers) > 0
    return _queue_reader(readers, queue_size, multiprocessing.get_context("fork"), timeout)


def capped_workers(num_workers, what="DataLoader"):
    """``num_workers`` capped by the CPUs this process may use (limits.cores()), with a one-line
    warning when it is more."""
    cpus = limits.cores()
    if num_workers <= cpus:
        return num_workers
    warnings.warn(
        f"{what}: num_workers={num_workers} is more than the {cpus} CPU(s) this process may use; "
        f"{cpus} worker processes are started",
        stacklevel=_caller_level(),
    )
    return cpus


def _caller_level():
    """warnings.warn's stacklevel for the first frame outside pe_cli: the script's line, not pe's."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PE_DIR):
        frame, level = frame.f_back, level + 1
    return level
