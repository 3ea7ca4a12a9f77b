"""Planned steps of the data-parallel executor on CPU devices (step_plan.py; PE_PLANNED_STEP=1).

The schedule's nodes (parallel_scheduler.Schedule) are cut into phases: a *launch phase* holds
each device's compute nodes that have launches and wait for nothing else since the last barrier
(each device's as one compiled segment); a *Python batch* the nodes that must touch Python (ops
without launches, collectives, fetches). A step runs them as *stages*: the devices' tasks at once,
device d's task being its segment of a phase, then its Python compute nodes that can run after it
(in waves: those whose predecessors in the batch ran), each device's in order; and, between them,
the batch's other nodes, run in the caller in the schedule's order. A gradient's reduce (CPU
devices share one memory: ``Reduce``) is a launch of the device owning its parameter, summing the
devices' gradients in device order into its own (step_plan.Reduce), in a phase after theirs. For a
training program: forward and backward on every device at once, then each device's reduces and
updates at once, then the broadcasts (each device given the owner's array). A stage runs
its tasks in the caller, one after the other, or on a thread a device, whichever its calibrating
runs found faster (_Stage). A value a segment reads that is not as planned makes the rest of the
step run node by node in the schedule's order, and the signature is planned again on its next step.
"""

import time
import weakref

import numpy as np

from ..compiler.ssa_nodes import ComputeNode, FetchNode, ReduceNode, ReleaseNode
from . import step_plan
from .segment import Segment
from .stage_workers import StageWorkers, run_inline
from .step_plan import DevicePlan, Reduce, Rewrite


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
        form = getattr(engine.runtime.collectives, "reduce_launches", None)
        for i in self.order:  # (a reduce: launched by the device owning the parameter, where it can be)
            if type(nodes[i]) is ReduceNode and form is not None:
                steps[i] = (nodes[i].attrs["root"], _reduce_item(nodes[i], sample, form))
        launchable = set()
        for d in range(n):
            ids, items = self._sequence(d, self.order, steps)
            plan = DevicePlan(items, sample[d])
            launchable.update(i for i, launches in zip(ids, plan.launches) if launches)
        phase, batch, preds = self._phases(launchable)
        for i in [i for i in phase if i not in launchable]:
            del phase[i]
        phases = max([*phase.values(), *batch.values(), 0]) + 1
        run_order = sorted(self.order, key=lambda i: (phase[i] if i in phase else batch[i] + 0.5, i))
        self.plans, segments = [], [[None] * n for _ in range(phases)]
        for d in range(n):
            ids, items = self._sequence(d, run_order, steps)
            plan = DevicePlan(items, sample[d])
            if {i for i, launches in zip(ids, plan.launches) if launches} != {i for i in ids if i in launchable}:
                raise Unplannable
            self.plans.append(plan)
            for k in range(phases):
                members = [j for j, i in enumerate(ids) if i in launchable and phase[i] == k]
                if members:
                    segments[k][d] = Segment(plan, members)
        self.stages = []
        for k in range(phases):
            stage = _Stage(n, segments[k])
            for i in run_order:
                if i in phase and phase[i] == k:
                    stage.add(i, self._device(i), launched=True)
            self.stages.append(stage)
            self._add_batch([i for i in self.order if i in batch and batch[i] == k], preds)
        self.planned_ops = sum(1 for i in launchable if isinstance(nodes[i], ComputeNode))
        self.planned_reduces = len(launchable) - self.planned_ops  # (summed inside segments)
        self.runs = 0

    def _add_batch(self, ids, preds):
        """A phase's Python batch (``ids``, in the schedule's order), after the stage of its segments:
        in waves, each of every compute node whose predecessors in the batch have run or run before
        it on its device in the wave (a wave's nodes run on their devices at once: it joins the last
        stage unless one reads another device's node of that), then every other node (a collective,
        a fetch) that can run then, alone in the caller, in the schedule's order."""
        device, nodes = self.sched.device, self.sched.nodes
        pending, placed = list(ids), set()
        while pending:
            wave, serial = [], []
            for i in pending:
                if isinstance(nodes[i], ComputeNode) and all(
                    p in placed or p not in pending or (p in wave and device[p] == device[i]) for p in preds[i]
                ):
                    wave.append(i)
            last = self.stages[-1]
            if wave and (
                type(last) is list or any(p in last.members and device[p] != device[i] for i in wave for p in preds[i])
            ):
                last = _Stage(self.n, [None] * self.n)
                self.stages.append(last)
            for i in wave:
                last.add(i, device[i], launched=False)
            placed.update(wave)
            for i in pending:
                if i not in placed and not isinstance(nodes[i], ComputeNode):
                    if all(p in placed or p not in pending or p in serial for p in preds[i]):
                        serial.append(i)
            if serial:
                self.stages.append(serial)
                placed.update(serial)
            if not wave and not serial:
                raise Unplannable
            pending = [i for i in pending if i not in placed]

    def _device(self, i):
        """The device node i runs on: a compute node's, a reduce's root."""
        node = self.sched.nodes[i]
        return node.attrs["root"] if type(node) is ReduceNode else self.sched.device[i]

    def _sequence(self, d, order, steps):
        """Device d's sequence in ``order``: (node ids, items): its compute nodes' steps, the Reduce
        of each gradient it owns, and a Rewrite for each other collective writing on it."""
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
        """(phase of each launchable node, batch of each other node: the earliest each can run in, preds)."""
        sched, phase, batch, device = self.sched, {}, {}, self._device
        everything = range(len(sched.nodes))
        preds = {i: [] for i in everything}
        for i in everything:
            for s in sched.succ[i]:
                preds[s].append(i)
        releases = {i for i in everything if isinstance(sched.nodes[i], ReleaseNode)}
        for i in everything:  # the schedule's order is topological
            if i in launchable or i in releases:  # (a release is not run: buffers stay)
                phase[i] = max(
                    [
                        (phase[p] + (p in launchable and i in launchable and device(p) != device(i)))
                        if p in phase
                        else batch[p] + 1
                        for p in preds[i]
                    ]
                    or [0]
                )  # (a launch reading another device's launch: a phase after it)
            else:
                batch[i] = max([phase[p] if p in phase else batch[p] for p in preds[i]] or [0])
        return phase, batch, preds

    def run(self, values, results, threads=None, workers=None):
        """One step on at most ``threads`` threads (None: one a device; the runtime's run_threads,
        which follows the cores other processes leave free), ``workers()`` giving the _Workers
        that run the other devices' tasks; False where it ended node by node (a value not as
        planned)."""
        alone = threads is not None and threads < 2
        for d, plan in enumerate(self.plans):
            values[d].update(plan.buffers)
            values[d].kept = plan.buffers.keys()  # (no enable_inplace step writes over a buffer)
        done, runners = set(), self.sched.runners
        timing = self.runs < CALIBRATION_RUNS
        for stage in self.stages:
            if type(stage) is list:
                for i in stage:
                    runners[i](values, results)
                done.update(stage)
                continue
            calls = stage.calls(values, results, runners)
            threaded, start = stage.threaded and not alone and workers is not None, time.perf_counter()
            if threaded:
                stale = workers().run(calls)
            else:
                stale = run_inline(calls, stage.seconds if timing else None)
            if not stale and (timing or (threaded and stage.trial) or (stage.recheck and not threaded and not alone)):
                stage.timed(threaded, time.perf_counter() - start)
            for d, ids in enumerate(stage.ids):
                if d not in stale:
                    done.update(ids)
            if stale:
                for i in self.order:
                    if i not in done:
                        runners[i](values, results)
                return False
        self.runs += 1
        if self.runs == CALIBRATION_RUNS:
            for stage in self.stages:
                if type(stage) is not list:
                    stage.try_threads()
        return True


class _Stage:
    """Work the devices run at once in a planned step: device d's task is its segment ``segments[d]``
    (None: none), then its Python nodes ``nodes[d]`` in order; ``ids[d]``: every schedule node the
    task covers. Its first CALIBRATION_RUNS runs run the tasks in the caller, one after the other;
    where at least two devices have tasks of at least TRIAL_SECONDS each, its next CALIBRATION_RUNS + 1
    runs with cores free for them (``trial``) run them on a thread a device (the first not timed: it
    starts numba's threads in the workers); from then on, it runs them the way whose best run was
    faster (``threaded``): threads can lose, to the hand-overs and to Python nodes taking turns on the
    GIL. ``walls``: the stage's times run in the caller, and on threads, while calibrating. Where the caller
    won, its next CALIBRATION_RUNS runs in the caller with cores free are timed again (``recheck``, into
    ``context``), beside the other stages as they now run, and threads are taken where their best beats
    that: the first runs in the caller ran after the earlier stages' tasks had run in the caller too, with
    every device's values in its core's caches. The MLP's reduces and updates took 0.25-0.32 ms there, 0.70
    once the backward pass ran on threads (a device's gradients then in the other core's cache), against
    0.19-0.29 on threads: in one of the starts measured the first comparison chose the caller, and its steps
    took 1.71 ms instead of 1.36 (docs/PARALLEL.md)."""

    __slots__ = (
        "context",
        "ids",
        "links",
        "members",
        "nodes",
        "recheck",
        "seconds",
        "segments",
        "threaded",
        "trial",
        "walls",
    )

    def __init__(self, n, segments):
        self.segments, self.nodes, self.ids = segments, [[] for _ in range(n)], [[] for _ in range(n)]
        self.members, self.seconds, self.threaded, self.walls = set(), [], False, ([], [])
        self.trial, self.recheck, self.context = False, False, []
        self.links = [  # (key, device, name): another device's value a Reduce of the segment reads
            [link for item in seg.steps if type(item) is Reduce for link in item.links] if seg is not None else []
            for seg in segments
        ]

    def try_threads(self):
        """After the runs in the caller: whether to try threads (while cores are free: a busy host's steps
        run the stage in the caller and leave the trial for later)."""
        self.threaded = self.trial = sum(bool(ids) for ids in self.ids) > 1 and min(self.seconds) >= TRIAL_SECONDS

    def timed(self, threaded, seconds):
        """A run's time: in the caller while calibrating, on threads while trying them (after its last,
        whether to keep them), or in the caller again where it kept the caller (after its last, whether to
        take threads after all)."""
        if self.recheck and not threaded:
            self.context.append(seconds)
            if len(self.context) == CALIBRATION_RUNS:
                self.recheck = False
                self.threaded = min(self.walls[1][1:]) < min(self.context) * THREADS_WIN
            return
        walls = self.walls[threaded]
        walls.append(seconds)
        if threaded and len(walls) == CALIBRATION_RUNS + 1:
            self.trial = False
            self.threaded = min(walls[1:]) < min(self.walls[0]) * THREADS_WIN
            self.recheck = not self.threaded

    def add(self, i, d, launched):
        if not launched:
            self.nodes[d].append(i)
        self.ids[d].append(i)
        self.members.add(i)

    def calls(self, values, results, runners):
        return [
            self._task(seg, nodes, self.links[d], values, d, results, runners) if seg is not None or nodes else None
            for d, (seg, nodes) in enumerate(zip(self.segments, self.nodes))
        ]

    @staticmethod
    def _task(seg, nodes, links, values, d, results, runners):
        def task():
            if seg is not None:
                own = values[d]
                for key, peer, name in links:  # (in this device's values while its segment runs)
                    own[key] = values[peer][name]
                try:
                    seg.run(own)
                finally:
                    for key, _, _ in links:
                        del own[key]
            for i in nodes:
                runners[i](values, results)

        return task


CALIBRATION_RUNS = 3  # planned runs with every stage run by the caller, each task timed; as many on threads
CALIBRATED_AFTER = 2 * CALIBRATION_RUNS + 1  # planned runs before a stage has chosen, where cores were free for it
# a stage whose devices' tasks each took this long in the caller tries threads (its trial keeps them only
# where they won): the MLP b128's reduces and updates, 160 us and 90 us a device, 0.29 -> 0.19 ms on threads
TRIAL_SECONDS = 30e-6
THREADS_WIN = 1.0  # a stage stays on threads where its best run there took less than this times its best in the caller


def _op_step(engine, node):
    return node.device, engine._step(
        node.op, node.device, node.attrs.get("inplace", False), node.attrs.get("blocked", frozenset())
    )


def _reduce_item(node, sample, form):
    """The step_plan.Reduce of a reduce node (form None where a gradient in ``sample`` is no array)."""
    name, root, devices = node.var, node.attrs["root"], node.devices
    arrays = {d: sample[d].get(name) for d in devices}
    if any(type(a) is not np.ndarray for a in arrays.values()):
        form = None
    peers = {(name, d): (a.shape, a.dtype) for d, a in arrays.items() if d != root and form is not None}
    return Reduce(name, root, devices, peers, form)


def _writes(node):
    """The names a node that is no compute node writes on its devices (collectives)."""
    if isinstance(node, FetchNode):
        return []
    return list(node.attrs.get("vars") or ([node.var] if node.var else []))


def run(engine, sched, values, results, feed_names):
    """Runs a step of ``sched`` planned where a plan of these feeds is kept; False where it must run
    node by node (then ``after`` plans it from that step's values when it is time)."""
    cache = sched.__dict__.setdefault("planned", {})
    key = step_plan.signature(values[0], feed_names)
    threads = engine.runtime.run_threads(engine.n)
    engine.runtime.follow_share()  # (the threads of the caller's segments' parallel loops: the cores free now)
    return step_plan.count_or_run(
        cache, key, lambda planned: planned.run(values, results, threads, lambda: _workers_of(engine))
    )


def _workers_of(engine):
    """The engine's threads for the other devices' segments, started on first use, stopped with it."""
    workers = engine.__dict__.get("_planned_workers")
    if workers is None:
        runtime = engine.runtime
        workers = engine.__dict__["_planned_workers"] = StageWorkers(
            engine.n - 1, runtime.worker_started, runtime.follow_share, getattr(runtime, "spin_until_changed", None)
        )
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
