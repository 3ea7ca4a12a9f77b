"""Running an SSA graph on a thread pool: a node runs once all its inputs are ready.

A ``Schedule`` is the graph turned into numbers once (for each node: how many inputs it waits for,
which nodes its outputs unblock, its device) plus one runner per node. ``ThreadPool.run`` executes it
in one of two ways.

CPU devices (token_threads.py). Under the GIL two threads gain only where a kernel runs long without
it (a convolution, a large GEMM); everywhere else they fight for it, and every GIL hand-over between
two threads wakes a sleeping one (tens of microseconds on a VM), more than a small op costs. So one
thread per device (the caller and ``devices - 1`` workers) serves one shared set of ready nodes, of
any device, taking turns holding one lock, the token: the holder runs small nodes one after another,
and lets the token go only to run a *heavy* node, waking one idle thread to carry on with the rest
(one hand-over; a worker that joined stays parked on the token between runs, so no thread is woken
to start a run or to end it) while its kernel computes. Small kernels that release the GIL then find no thread
waiting for it. Which nodes are heavy is measured: the first ``CALIBRATION_RUNS`` runs of a schedule
run every node with the token held; the runs after the first ``WARM_RUNS`` (which compile, fault
pages in and fill caches) time each node, and nodes of at least ``HEAVY_SECONDS`` are heavy from
then on; a shorter node keeps the token even while another thread waits for it, since its Python
work would wait for the holder's GIL anyway; where no node is heavy, and while calibrating, the
caller runs the whole graph alone. The holder takes the ready node with the longest measured path to the end first
(list scheduling), so the devices finish together: a device whose core is slower (another process
shares it) gets help instead of being waited for. Which thread runs a node, and when, never
changes what it computes: the graph orders every value's readers and writers, values live in per
device dicts, and kernels are pure functions.

CUDA devices (``_Run``), where kernels are asynchronous launches: device-affine tasks. A task serves
one device, running that device's ready nodes one after another; a node made ready for another
device goes to that device's task (queued on the pool, or handed to it if one is running). Nodes
spanning devices (all-reduce, broadcast, fetch) run in the task that made them ready. The calling
thread runs the first device's task itself (it would wait anyway).

The first exception stops the run: no new node starts, the nodes already running finish, and the
exception is raised in the caller. Workers survive a failed run, ready for the next one.
"""

import math
import queue
import threading
import weakref

from .token_threads import TokenThreads

WARM_RUNS = 2  # runs timing nothing: they compile, fault pages in, fill caches
CALIBRATION_RUNS = 5  # runs with the token held throughout, the warm ones included
HEAVY_SECONDS = 100e-6  # nodes at least this long run without the token


class Schedule:
    """``runners[i](values, results)`` runs node i; ``succ[i]`` lists the nodes it unblocks (once
    per input edge), ``deps[i]`` how many such edges node i waits for, ``device[i]`` its device
    (-1 for nodes spanning devices). A node whose ``eager`` is true (it only frees memory) runs
    before any other ready node: it is last in each ``succ`` list (a device's task list is a
    stack) and first by ``priority``."""

    def __init__(self, nodes, runners):
        index = {node.id: i for i, node in enumerate(nodes)}
        deps = [0] * len(nodes)
        succ = [[] for _ in nodes]
        for i, node in enumerate(nodes):
            seen = set()
            for var in node.inputs:
                if var.producer is None or var.id in seen:
                    continue
                seen.add(var.id)
                deps[i] += 1
                succ[index[var.producer.id]].append(i)
        self.nodes = nodes
        self.runners = runners
        self.deps = deps
        self.eager = [bool(getattr(node, "eager", False)) for node in nodes]
        self.succ = [tuple(sorted(s, key=self.eager.__getitem__)) for s in succ]
        self.device = [node.device if node.device is not None else -1 for node in nodes]
        self.num_devices = max(self.device, default=-1) + 1
        roots = {}
        for i, n in enumerate(deps):
            if n == 0:
                roots.setdefault(max(self.device[i], 0), []).append(i)
        # task lists are stacks: reversed so a device starts with its first node in program order
        self.roots = {d: list(reversed(ids)) for d, ids in sorted(roots.items())}
        self.root_ids = sorted(i for i, n in enumerate(deps) if n == 0)
        self.runs = 0
        self.seconds = [float("inf")] * len(nodes)  # each node's shortest time while calibrating
        self.heavy = [False] * len(nodes)
        self.shared = False  # calibrated, with a node worth another thread (see ThreadPool.run)
        # smaller first: program order until calibrated (eager nodes first)
        self.priority = [-1 if self.eager[i] else i for i in range(len(nodes))]

    def calibrating(self):
        """True while the runs time their nodes (the token is then held throughout)."""
        return self.runs < CALIBRATION_RUNS

    def timing(self):
        """The list keeping each node's shortest time while this run should time them, else None."""
        return self.seconds if self.calibrating() and self.runs >= WARM_RUNS else None

    def finish_run(self):
        self.runs += 1
        if self.runs == CALIBRATION_RUNS:
            seconds = [0.0 if t == float("inf") else t for t in self.seconds]
            self.heavy = [t >= HEAVY_SECONDS for t in seconds]
            self.shared = any(self.heavy)  # else a second thread costs more hand-overs than it gains
            # the longest path from each node to the end (itself included); nodes come in a valid
            # sequential order, so one backward pass computes it
            path = list(seconds)
            for i in range(len(path) - 1, -1, -1):
                if self.succ[i]:
                    path[i] += max(path[s] for s in self.succ[i])
            self.priority = [(-math.inf if self.eager[i] else -path[i], i) for i in range(len(path))]


class _Run:
    """The state of one execution of a schedule."""

    def __init__(self, schedule, values, results, submit):
        self.schedule = schedule
        self.deps = list(schedule.deps)
        self.values = values
        self.results = results
        self.submit = submit
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.remaining = len(schedule.runners)
        self.outstanding = 0  # device tasks queued or running
        self.active = [False] * max(schedule.num_devices, 1)
        self.mailbox = [[] for _ in self.active]
        self.error = None

    def start(self, inline):
        """Queues one task per device with ready nodes; returns the one the caller should run
        itself (``inline``), or None."""
        groups = [(d, list(ids)) for d, ids in self.schedule.roots.items()]
        if not groups:
            self.done.set()
            return None
        self.outstanding = len(groups)
        for d, _ in groups:
            self.active[d] = True
        first = groups.pop(0) if inline else None
        for d, ids in groups:
            self.submit((self, d, ids))
        return first

    def task(self, device, local):
        """Runs ``device``'s ready nodes (and nodes spanning devices it makes ready) until none is left."""
        runners, succ, deps, lock = self.schedule.runners, self.schedule.succ, self.deps, self.lock
        node_device, active, mailbox = self.schedule.device, self.active, self.mailbox
        values, results = self.values, self.results
        while True:
            while local and self.error is None:
                i = local.pop()
                try:
                    runners[i](values, results)
                except BaseException as e:  # noqa: B036 - any failure stops the run and reaches the caller
                    with lock:
                        if self.error is None:
                            self.error = e
                    break
                new_tasks = None
                with lock:
                    self.remaining -= 1
                    for s in succ[i]:
                        left = deps[s] - 1
                        deps[s] = left
                        if left:
                            continue
                        d = node_device[s]
                        if d == device or d < 0:
                            local.append(s)
                        elif active[d]:
                            mailbox[d].append(s)
                        else:
                            active[d] = True
                            self.outstanding += 1
                            new_tasks = (new_tasks or []) + [(self, d, [s])]
                if new_tasks:
                    for t in new_tasks:
                        self.submit(t)
            with lock:
                if self.error is None and mailbox[device]:
                    local, mailbox[device] = mailbox[device], []
                    continue
                active[device] = False
                self.outstanding -= 1
                finished = self.outstanding == 0
            if finished:
                self.done.set()
            return


def _worker(tasks, initializer):
    if initializer is not None:
        initializer()
    while True:
        item = tasks.get()
        if item is None:
            return
        if callable(item):  # a shared run's task
            item()
        else:
            item[0].task(*item[1:])
        del item  # an idle worker keeps no run's values: an update may then write them in place


def _shutdown(tasks, threads, token_threads):
    token_threads.close()  # its parked workers go back to the queue
    for _ in threads:
        tasks.put(None)
    me = threading.current_thread()
    for t in threads:
        if t is not me:
            t.join(timeout=5)


class ThreadPool:
    """Runs schedules with at most ``num_threads`` threads: ``num_threads - 1`` daemon workers plus
    the calling thread (all workers when ``num_threads`` is 1). Each worker calls ``initializer``
    (if any) when it starts. Workers stop on ``close()`` or when the pool is collected."""

    def __init__(self, num_threads, name="pe", initializer=None):
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self.num_threads = num_threads
        self._inline = num_threads > 1
        workers = num_threads - 1 if self._inline else 1
        self._tasks = queue.SimpleQueue()
        self._threads = [
            threading.Thread(target=_worker, args=(self._tasks, initializer), daemon=True, name=f"{name}-worker-{i}")
            for i in range(workers)
        ]
        for t in self._threads:
            t.start()
        self._token_threads = TokenThreads(self._tasks.put)
        self._token = self._token_threads.token
        self._closer = weakref.finalize(self, _shutdown, self._tasks, self._threads, self._token_threads)
        self._busy = threading.Lock()

    @property
    def closed(self):
        return not self._closer.alive

    def close(self):
        self._closer()

    def run(self, schedule, values, results, token=True, limit=None):
        """Runs every node of ``schedule``; raises the first node's exception, once the nodes
        already running have finished. ``token``: threads share the ready nodes and take turns
        holding the token (CPU devices, module docstring), at most ``limit`` of them (None: one per
        device); False: device-affine tasks all running at once (CUDA devices, whose kernels are
        asynchronous launches)."""
        if self.closed:
            raise RuntimeError("this executor was closed")
        with self._busy:  # one run at a time per pool (per executor)
            threads = min(self.num_threads, schedule.num_devices)
            if token and threads > 1:
                count = threads if limit is None else max(1, min(threads, limit))
                return self._run_shared(schedule, values, results, count if schedule.shared else 1)
            run = _Run(schedule, values, results, self._tasks.put)
            try:
                first = run.start(self._inline)
                if first is not None:
                    run.task(*first)
                run.done.wait()
            except BaseException as e:  # KeyboardInterrupt: stop, let running nodes finish, re-raise
                with run.lock:
                    if run.error is None:
                        run.error = e
                run.done.wait()
                raise
            self._check(run)

    def _run_shared(self, schedule, values, results, threads):
        self._check(self._token_threads.execute(schedule, values, results, threads))
        schedule.finish_run()

    @staticmethod
    def _check(run):
        if run.error is not None:
            raise run.error
        if run.remaining:
            raise RuntimeError(
                f"internal error: the parallel executor stopped with {run.remaining} "
                f"ops not run (a cycle in the graph?)"
            )
