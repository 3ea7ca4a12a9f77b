"""Running an SSA graph on a thread pool: a node runs once all its inputs are ready.

A ``Schedule`` is the graph turned into numbers once (for each node: how many inputs it waits for,
which nodes its outputs unblock, its device) plus one runner per node. ``ThreadPool.run`` executes
it with device-affine tasks: a task serves one device, running that device's ready nodes one after
another; a node made ready for another device goes to that device's task (queued on the pool, or
handed to it if one is running). Nodes spanning devices (all-reduce, broadcast, fetch) run in the
task that made them ready. So devices run at once, each on its own worker, and a ready node never
waits for a thread hand-off within its device: under the GIL a hand-off costs more than a small op.
The calling thread runs the first device's task itself (it would wait anyway).

The token. Under the GIL two device threads gain only where a kernel runs long without it (a
convolution, a large GEMM); everywhere else they fight for it, and every GIL hand-over between two
threads wakes a sleeping one (tens of microseconds on a VM), more than a small op costs. So device
tasks take turns holding one lock, the token, while they run Python and small ops; a task lets the
token go only around a *heavy* node, so that the other devices run their small ops (one hand-over)
while its kernel computes. Small kernels that release the GIL then find no thread waiting for it,
and cost no hand-over. Which nodes are heavy is measured: the first ``CALIBRATION_RUNS`` runs of a
schedule run with the token held throughout; the runs after the first ``WARM_RUNS`` (which compile,
fault pages in and fill caches) time every node, and nodes of at least ``HEAVY_SECONDS`` are heavy from then on.
The order nodes run in never changes what they compute (the graph orders every value's readers and
writers), so the token changes speed only.

The first exception stops the run: no new node starts, the nodes already running finish, and the
exception is raised in the caller. Workers survive a failed run, ready for the next one.
"""
import queue
import threading
import weakref
from time import perf_counter

WARM_RUNS = 2               # runs timing nothing: they compile, fault pages in, fill caches
CALIBRATION_RUNS = 5        # runs timing every node, the warm ones included
HEAVY_SECONDS = 100e-6      # nodes at least this long run without the token


class Schedule:
    """``runners[i](values, results)`` runs node i; ``succ[i]`` lists the nodes it unblocks (once
    per input edge), ``deps[i]`` how many such edges node i waits for, ``device[i]`` its device
    (-1 for nodes spanning devices)."""

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
        self.succ = [tuple(s) for s in succ]
        self.device = [node.device if node.device is not None else -1 for node in nodes]
        self.num_devices = max(self.device, default=-1) + 1
        roots = {}
        for i, n in enumerate(deps):
            if n == 0:
                roots.setdefault(max(self.device[i], 0), []).append(i)
        # task lists are stacks: reversed so a device starts with its first node in program order
        self.roots = {d: list(reversed(ids)) for d, ids in sorted(roots.items())}
        self.runs = 0
        self.seconds = [float("inf")] * len(nodes)     # each node's shortest time while calibrating
        self.heavy = [False] * len(nodes)

    def calibrating(self):
        """True while the runs time their nodes (the token is then held throughout)."""
        return self.runs < CALIBRATION_RUNS

    def finish_run(self):
        self.runs += 1
        if self.runs == CALIBRATION_RUNS:
            self.heavy = [t >= HEAVY_SECONDS for t in self.seconds]


class _Run:
    """The state of one execution of a schedule."""

    def __init__(self, schedule, values, results, submit, token=None):
        self.schedule = schedule
        self.token = token          # held while a task runs, except around heavy nodes
        self.deps = list(schedule.deps)
        self.values = values
        self.results = results
        self.submit = submit
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.remaining = len(schedule.runners)
        self.outstanding = 0                 # device tasks queued or running
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
        token = self.token
        if token is None:
            return self._task(device, local, None)
        token.acquire()
        held = [True]
        try:
            self._task(device, local, held)
        finally:
            if held[0]:
                token.release()

    def _task(self, device, local, held):
        schedule = self.schedule
        runners, succ, deps, lock = schedule.runners, schedule.succ, self.deps, self.lock
        node_device, active, mailbox = schedule.device, self.active, self.mailbox
        values, results, token = self.values, self.results, self.token
        timing = schedule.seconds if schedule.calibrating() and held is not None else None
        heavy = schedule.heavy if held is not None and timing is None else None
        while True:
            while local and self.error is None:
                i = local.pop()
                try:
                    if timing is not None:
                        start = perf_counter()
                        runners[i](values, results)
                        seconds = perf_counter() - start
                        if seconds < timing[i] and schedule.runs >= WARM_RUNS:
                            timing[i] = seconds
                    elif heavy is not None and heavy[i]:
                        token.release()
                        held[0] = False
                        try:
                            runners[i](values, results)
                        finally:
                            token.acquire()
                            held[0] = True
                    else:
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
                            if new_tasks is None:
                                new_tasks = []
                            new_tasks.append((self, d, [s]))
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


def _worker(tasks):
    while True:
        item = tasks.get()
        if item is None:
            return
        run, device, nodes = item
        run.task(device, nodes)


def _shutdown(tasks, threads):
    for _ in threads:
        tasks.put(None)
    me = threading.current_thread()
    for t in threads:
        if t is not me:
            t.join(timeout=5)


class ThreadPool:
    """Runs schedules with at most ``num_threads`` threads: ``num_threads - 1`` daemon workers plus
    the calling thread (all workers when ``num_threads`` is 1). Workers stop on ``close()`` or when
    the pool is collected."""

    def __init__(self, num_threads, name="pe"):
        if num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        self.num_threads = num_threads
        self._inline = num_threads > 1
        workers = num_threads - 1 if self._inline else 1
        self._tasks = queue.SimpleQueue()
        self._threads = [threading.Thread(target=_worker, args=(self._tasks,), daemon=True,
                                          name=f"{name}-worker-{i}") for i in range(workers)]
        for t in self._threads:
            t.start()
        self._closer = weakref.finalize(self, _shutdown, self._tasks, self._threads)
        self._busy = threading.Lock()
        self._token = threading.Lock()

    @property
    def closed(self):
        return not self._closer.alive

    def close(self):
        self._closer()

    def run(self, schedule, values, results, token=True):
        """Runs every node of ``schedule``; raises the first node's exception, once the nodes
        already running have finished. ``token``: device tasks take turns holding the token
        (module docstring); False lets them all run at once (when no kernel holds the GIL long:
        CUDA launches)."""
        if self.closed:
            raise RuntimeError("this executor was closed")
        with self._busy:     # one run at a time per pool (per executor)
            use_token = token and schedule.num_devices > 1 and self.num_threads > 1
            run = _Run(schedule, values, results, self._tasks.put, self._token if use_token else None)
            try:
                first = run.start(self._inline)
                if first is not None:
                    run.task(*first)
                run.done.wait()
            except BaseException as e:   # KeyboardInterrupt: stop, let running nodes finish, re-raise
                with run.lock:
                    if run.error is None:
                        run.error = e
                run.done.wait()
                raise
            if run.error is not None:
                raise run.error
            if run.remaining:
                raise RuntimeError(f"internal error: the parallel executor stopped with {run.remaining} "
                                   f"ops not run (a cycle in the graph?)")
            if use_token:
                schedule.finish_run()
