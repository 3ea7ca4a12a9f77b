"""Where a step's time goes: each op type's kernel time, and the run split into kernels, dispatch
(the executor's own work between kernels: gathering inputs, storing outputs, the loop) and data
(feeds in, scope reads and writes, fetched copies out).

Fluid's face::

    with fluid.profiler.profiler("CPU", sorted_key="total"):
        for batch in reader():
            exe.run(main, feed=batch, fetch_list=[loss])
    # prints the table when the block ends (and writes it to profile_path if given)

and for tools (the benchmark)::

    with profiler.collect() as prof:
        ...
    prof.summary()        # {"runs", "ops_per_run", "step_ms", "kernel_ms", "dispatch_ms", ...}

Nothing is timed while no profile is collecting: the executors check ``active()`` once per run.
"""

import contextlib
import threading
import time

from .atomic_file import atomic_write

__all__ = ["profiler", "start_profiler", "stop_profiler", "reset_profiler", "collect", "Profile"]

_SORT_KEYS = (None, "calls", "total", "max", "min", "ave")
_current = None


class Profile:
    """Times of the runs made while it collects; safe to fill from several executor threads."""

    MAX_EVENTS = 200_000  # the timeline keeps the first kernel runs; the totals count every one

    def __init__(self):
        self._lock = threading.Lock()
        self.events = []  # (op type, start ns, end ns, thread index): the timeline of kernel runs
        self._threads = {}
        self.start_ns = time.time_ns()
        self.end_ns = None
        self.ops = {}  # op type -> [calls, total s, min s, max s]
        self.runs = 0
        self.ops_run = 0
        self.total = 0.0  # seconds inside executor runs
        self.loop = 0.0  # of which running the ops (kernels + dispatch)
        self.kernels = 0.0  # of which inside kernels
        self._local = threading.local()  # each thread's kernels running now, outermost first

    def enter(self, op_type):
        """Opens a kernel run of ``op_type`` on this thread, to be recorded (by ``leave``) as the op
        type, or as ``owner/op type`` for an op the block of a control-flow op runs (a ``while``'s
        ``elementwise_mul``: ``while/elementwise_mul``), whose time is part of its owner's."""
        stack = getattr(self._local, "open_kernels", None)
        if stack is None:
            stack = self._local.open_kernels = []
        stack.append(f"{stack[-1]}/{op_type}" if stack else op_type)

    def leave(self, seconds):
        """Closes this thread's innermost kernel run, which took ``seconds``, and records it."""
        stack = self._local.open_kernels
        self.record_kernel(stack.pop(), seconds, nested=bool(stack))

    def record_kernel(self, op_type, seconds, nested=False):
        """One kernel run; a ``nested`` one (inside another kernel) is not added to ``kernels`` again."""
        end = time.time_ns()
        with self._lock:
            if len(self.events) < self.MAX_EVENTS:
                thread = self._threads.setdefault(threading.get_ident(), len(self._threads))
                self.events.append((op_type, end - int(seconds * 1e9), end, thread))
            entry = self.ops.get(op_type)
            if entry is None:
                self.ops[op_type] = [1, seconds, seconds, seconds]
            else:
                entry[0] += 1
                entry[1] += seconds
                entry[2] = min(entry[2], seconds)
                entry[3] = max(entry[3], seconds)
            if not nested:
                self.kernels += seconds

    def record_run(self, total, loop, ops):
        """One executor run: its wall time, the part spent running ops, and how many ops ran."""
        with self._lock:
            self.runs += 1
            self.total += total
            self.loop += loop
            self.ops_run += ops

    def summary(self):
        """Per-run averages in milliseconds, and the dispatch cost per op in microseconds. With
        several devices, kernels and dispatch are summed over the devices' threads, so they may
        exceed the wall time."""
        runs = max(self.runs, 1)
        dispatch = max(self.loop - self.kernels, 0.0)
        return {
            "runs": self.runs,
            "ops_per_run": self.ops_run / runs,
            "step_ms": 1e3 * self.total / runs,
            "kernel_ms": 1e3 * self.kernels / runs,
            "dispatch_ms": 1e3 * dispatch / runs,
            "data_ms": 1e3 * max(self.total - self.loop, 0.0) / runs,
            "dispatch_us_per_op": 1e6 * dispatch / max(self.ops_run, 1),
        }

    def table(self, sorted_key="total"):
        """The per-op-type table, then the split of a run, as text."""
        if sorted_key not in _SORT_KEYS:
            raise ValueError(f"sorted_key must be one of {list(_SORT_KEYS)}, got {sorted_key!r}")
        rows = [(name, calls, total, lo, hi) for name, (calls, total, lo, hi) in self.ops.items()]
        index = {"calls": 1, "total": 2, "min": 3, "max": 4}
        if sorted_key == "ave":
            rows.sort(key=lambda r: -r[2] / r[1])
        elif sorted_key is not None:
            rows.sort(key=lambda r: -r[index[sorted_key]])
        runs = max(self.runs, 1)
        lines = [f"{'op':<36}{'calls/run':>10}{'ms/run':>10}{'ave us':>10}{'min us':>10}{'max us':>10}{'%':>7}"]
        for name, calls, total, lo, hi in rows:
            share = 100.0 * total / self.kernels if self.kernels else 0.0
            lines.append(
                f"{name:<36}{calls / runs:>10.1f}{1e3 * total / runs:>10.3f}{1e6 * total / calls:>10.1f}"
                f"{1e6 * lo:>10.1f}{1e6 * hi:>10.1f}{share:>7.1f}"
            )
        s = self.summary()
        lines.append(
            f"per run ({s['runs']} runs, {s['ops_per_run']:.0f} ops): {s['step_ms']:.3f} ms = kernels "
            f"{s['kernel_ms']:.3f} + dispatch {s['dispatch_ms']:.3f} ({s['dispatch_us_per_op']:.1f} us/op) "
            f"+ data {s['data_ms']:.3f}"
        )
        return "\n".join(lines)


def active():
    """The profile collecting now, or None."""
    return _current


@contextlib.contextmanager
def collect():
    """Collects a Profile of the runs inside the block and gives it to the caller."""
    global _current
    previous, _current = _current, Profile()
    try:
        yield _current
    finally:
        _current = previous


def start_profiler(state="CPU", tracer_option="Default"):
    """Starts collecting (Fluid's signature; ``state`` is 'CPU', 'GPU' or 'All')."""
    global _current
    if state not in ("CPU", "GPU", "All"):
        raise ValueError(f"state must be 'CPU', 'GPU' or 'All', got {state!r}")
    if _current is None:
        _current = Profile()


def reset_profiler():
    """Drops what was collected so far and keeps collecting."""
    global _current
    if _current is not None:
        _current = Profile()


def finish():
    """Stops collecting and returns the Profile collected (None when none was collecting)."""
    global _current
    profile, _current = _current, None
    if profile is not None:
        profile.end_ns = time.time_ns()
    return profile


def stop_profiler(sorted_key=None, profile_path=None):
    """Stops collecting; prints the table (sorted by ``sorted_key``: None, 'calls', 'total',
    'max', 'min' or 'ave') and writes it to ``profile_path`` when one is given."""
    profile = finish()
    if profile is None:
        return None
    text = profile.table(sorted_key)
    print(text)
    if profile_path:
        atomic_write(profile_path, text + "\n")
    return profile


@contextlib.contextmanager
def profiler(state="CPU", sorted_key=None, profile_path=None, tracer_option="Default"):
    """Profiles the runs inside the block and prints the table at its end (Fluid 1.x)."""
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)


def clock():
    return time.perf_counter()
