"""Planned steps of the data-parallel executor on CPU devices (step_plan.py; PE_PLANNED_STEP=1).

The schedule's nodes (parallel_scheduler.Schedule) are cut into phases: a *launch phase* holds
each device's compute nodes that have launches and wait for nothing else since the last barrier;
a *Python batch* holds the nodes that must touch Python (collectives, fetches, ops without
launches), run by the caller in the schedule's order. A step runs launch phase 0 (each device's
nodes as one compiled segment, the devices' segments at once on one thread each, without the
GIL: a phase whose segments took less than HEAVY_SECONDS each, timed over the first runs, runs
them one after the other in the caller, as a hand-over would cost more), then batch 0, then launch
phase 1, and so on: for a training program, forward and backward
on every device at once, the all-reduces, then the updates at once. A value a segment reads that
is not as planned makes the rest of the step run node by node in the schedule's order, and the
signature is planned again on its next step.
"""

import queue
import threading
import time
import weakref

from ..compiler.ssa_nodes import ComputeNode, FetchNode, ReleaseNode
from . import step_plan
from .parallel_scheduler import HEAVY_SECONDS
from .segment import Segment, Stale
from .step_plan import DevicePlan, Rewrite


class Unplannable(Exception):
    """The schedule's nodes cannot be cut into phases that keep each device's order."""


class PlannedRun:
    """A schedule's step planned for the values of a step that ran node by node (``sample``: one
    Values a device)."""

    def __init__(self, engine, sched, sample):
        nodes, n = sched.nodes, engine.n
        self.sched, self.n = sched, n
        self.order = [i for i, node in enumerate(nodes) if not isinstance(node, ReleaseNode)]
        steps = {i: _op_step(engine, nodes[i]) for i in self.order if isinstance(nodes[i], ComputeNode)}
        launchable = set()
        for d in range(n):
            ids, items = self._sequence(d, self.order, steps)
            plan = DevicePlan(items, sample[d])
            launchable.update(i for i, launches in zip(ids, plan.launches) if launches)
        phase, batch = self._phases(launchable)
        for i in [i for i in phase if i not in launchable]:
            del phase[i]
        self.phases = max([*phase.values(), *batch.values(), 0]) + 1
        run_order = sorted(self.order, key=lambda i: (phase[i] if i in phase else batch[i] + 0.5, i))
        self.plans, self.segments = [], [[None] * n for _ in range(self.phases)]
        for d in range(n):
            ids, items = self._sequence(d, run_order, steps)
            plan = DevicePlan(items, sample[d])
            if {i for i, launches in zip(ids, plan.launches) if launches} != {i for i in ids if i in launchable}:
                raise Unplannable
            self.plans.append(plan)
            for k in range(self.phases):
                members = [j for j, i in enumerate(ids) if i in launchable and phase[i] == k]
                if members:
                    self.segments[k][d] = Segment(plan, members)
        self.batches = [[i for i in self.order if i in batch and batch[i] == k] for k in range(self.phases)]
        self.phase_nodes = [[i for i in run_order if i in phase and phase[i] == k] for k in range(self.phases)]
        self.planned_ops = len(launchable)
        self.runs, self.threaded = 0, [False] * self.phases
        self.seconds = [[] for _ in range(self.phases)]  # per phase: its segments' times while calibrating

    def _sequence(self, d, order, steps):
        """Device d's sequence in ``order``: (node ids, items): its compute nodes' steps and a
        Rewrite for each collective writing on it."""
        nodes, ids, items = self.sched.nodes, [], []
        for i in order:
            if i in steps:
                if steps[i][0] == d:
                    ids.append(i)
                    items.append(steps[i][1])
            elif d in nodes[i].devices and _writes(nodes[i]):
                ids.append(i)
                items.append(Rewrite(_writes(nodes[i])))
        return ids, items

    def _phases(self, launchable):
        """(phase of each launchable node, batch of each other node): the earliest each can run in."""
        sched, phase, batch = self.sched, {}, {}
        everything = range(len(sched.nodes))
        preds = {i: [] for i in everything}
        for i in everything:
            for s in sched.succ[i]:
                preds[s].append(i)
        releases = {i for i in everything if isinstance(sched.nodes[i], ReleaseNode)}
        for i in everything:  # the schedule's order is topological
            if i in launchable or i in releases:  # (a release is not run: buffers stay)
                phase[i] = max([phase[p] if p in phase else batch[p] + 1 for p in preds[i]] or [0])
            else:
                batch[i] = max([phase[p] if p in phase else batch[p] for p in preds[i]] or [0])
        return phase, batch

    def run(self, values, results, threads=None, workers=None):
        """One step on at most ``threads`` threads (None: one a device; the runtime's run_threads,
        which follows the cores other processes leave free), ``workers()`` giving the _Workers
        that run the other devices' segments; False where it ended node by node (a value not as
        planned)."""
        alone = threads is not None and threads < 2
        for d, plan in enumerate(self.plans):
            values[d].update(plan.buffers)
            values[d].kept = plan.buffers.keys()  # (no enable_inplace step writes over a buffer)
        done, runners = set(), self.sched.runners
        timing = self.runs < CALIBRATION_RUNS
        for k in range(self.phases):
            calls = [
                None if seg is None else (lambda seg=seg, d=d: seg.run(values[d]))
                for d, seg in enumerate(self.segments[k])
            ]
            if self.threaded[k] and not alone and workers is not None:
                stale = workers().run(calls)
            else:
                stale = _inline(calls, self.seconds[k] if timing else None)
            if stale:
                for d, seg in enumerate(self.segments[k]):
                    if seg is not None and d not in stale:
                        done.update(i for i in self.phase_nodes[k] if self.sched.device[i] == d)
                for i in self.order:
                    if i not in done:
                        runners[i](values, results)
                return False
            done.update(self.phase_nodes[k])
            for i in self.batches[k]:
                runners[i](values, results)
                done.add(i)
        self.runs += 1
        if self.runs == CALIBRATION_RUNS:  # threads only for phases whose segments pay a hand-over
            self.threaded = [min(t, default=0.0) >= HEAVY_SECONDS for t in self.seconds]
        return True


CALIBRATION_RUNS = 3  # planned runs with every phase run by the caller, each segment timed


def _inline(calls, seconds):
    """Runs the calls one after the other in this thread (the shortest time of each in ``seconds``,
    a list, where given); returns the devices whose segment was Stale."""
    stale = set()
    for d, call in enumerate(calls):
        if call is None:
            continue
        start = time.perf_counter()
        try:
            call()
        except Stale:
            stale.add(d)
            continue
        if seconds is not None:
            seconds.append(time.perf_counter() - start)
    return stale


def _op_step(engine, node):
    return node.device, engine._step(
        node.op, node.device, node.attrs.get("inplace", False), node.attrs.get("blocked", frozenset())
    )


def _writes(node):
    """The names a node that is no compute node writes on its devices (collectives)."""
    if isinstance(node, FetchNode):
        return []
    return list(node.attrs.get("vars") or ([node.var] if node.var else []))


class _Workers:
    """``count`` threads, each running one device's segment of a phase while the caller runs the first."""

    def __init__(self, count, initializer=None):
        self.tasks = [queue.SimpleQueue() for _ in range(count)]
        self.done = queue.SimpleQueue()
        for q in self.tasks:
            threading.Thread(target=self._work, args=(q, initializer), daemon=True, name="pe-planned").start()

    def _work(self, tasks, initializer):
        if initializer is not None:
            initializer()
        while True:
            task = tasks.get()
            if task is None:
                return
            d, fn = task
            try:
                fn()
                self.done.put((d, None))
            except BaseException as e:  # noqa: B036, BLE001 - reaches the caller
                self.done.put((d, e))

    def run(self, fns):
        """Runs fns[d] (None: nothing) at once; returns the devices whose segment was Stale."""
        sent = []
        for d, fn in enumerate(fns[1:], 1):
            if fn is not None:
                self.tasks[d - 1].put((d, fn))
                sent.append(d)
        errors = []
        if fns[0] is not None:
            try:
                fns[0]()
            except BaseException as e:  # noqa: B036, BLE001 - raised below
                errors.append((0, e))
        for _ in sent:
            d, e = self.done.get()
            if e is not None:
                errors.append((d, e))
        other = [e for _, e in errors if not isinstance(e, Stale)]
        if other:
            raise other[0]
        return {d for d, e in errors if isinstance(e, Stale)}

    def close(self):
        for q in self.tasks:
            q.put(None)


def run(engine, sched, values, results, feed_names):
    """Runs a step of ``sched`` planned where a plan of these feeds is kept; False where it must run
    node by node (then ``after`` plans it from that step's values when it is time)."""
    cache = sched.__dict__.setdefault("planned", {})
    key = step_plan.signature(values[0], feed_names)
    threads = engine.runtime.run_threads(engine.n)
    return step_plan.count_or_run(
        cache, key, lambda planned: planned.run(values, results, threads, lambda: _workers_of(engine))
    )


def _workers_of(engine):
    """The engine's threads for the other devices' segments, started on first use, stopped with it."""
    workers = engine.__dict__.get("_planned_workers")
    if workers is None:
        workers = engine.__dict__["_planned_workers"] = _Workers(engine.n - 1, engine.runtime.worker_started)
        weakref.finalize(engine, workers.close)
    return workers


def close(engine):
    """Stops the engine's threads for planned segments, if it started them."""
    workers = engine.__dict__.pop("_planned_workers", None)
    if workers is not None:
        workers.close()


def after(engine, sched, values):
    """Plans the signature the last ``run`` marked, from the values of its step (run node by node)."""
    cache = sched.__dict__.get("planned", {})
    key = step_plan.pending(cache)
    if key is None:
        return
    try:
        cache[key] = PlannedRun(engine, sched, values)
    except Unplannable:
        cache[key] = -(1 << 30)  # counted, never planned
