"""The threads that run schedules on CPU devices, taking turns holding one lock, the token
(pe_cli/executor/parallel_scheduler.py's module docstring has the why).

``TokenThreads`` belongs to one ``ThreadPool``. A run's caller holds the token and runs ready nodes
of any device; it lets the token go only to run a heavy node, and then hands the other ready nodes
to an idle thread. Threads join a run only then: a worker is started at the first such hand-over,
and once it has joined it stays *parked* on the token's condition between runs instead of leaving,
so that the next run's hand-over wakes it directly. A run therefore wakes no thread to start, none
to end (its caller goes on as soon as the last node has run: it never waits for a worker to leave),
and exactly one per hand-over. A parked worker holds no reference to a finished run.
"""

import heapq
import threading
from time import perf_counter


class TokenThreads:
    """The token, its condition, and the workers of one pool parked on it between runs."""

    def __init__(self, submit):
        self.token = threading.Lock()
        self.cond = threading.Condition(self.token)  # parked workers wait here
        self.caller_cond = threading.Condition(self.token)  # a run's caller waits here (one run at a time)
        self.submit = submit  # queues a callable on one of the pool's workers
        self.run = None  # the run being served
        self.workers = 0  # workers that joined (parked, or serving a run)
        self.parked = 0  # of which waiting on ``cond``
        self.closed = False

    def execute(self, schedule, values, results, threads):
        """Runs every node of ``schedule`` with the caller and at most ``threads - 1`` workers."""
        run = TokenRun(self, schedule, values, results, threads)
        if not run.remaining:
            return run
        with self.token:
            self.run = run
            try:
                try:
                    run.work(caller=True)
                except BaseException as e:  # noqa: B036 - a KeyboardInterrupt in the caller: stop the run
                    run.fail(e)
                run.check_done()
                run.wait_done()
            except BaseException as e:  # interrupted while waiting: stop, let running nodes finish
                run.fail(e)
                run.wait_done(interruptible=False)
                raise
            finally:
                self.run = None
        return run

    def serve(self):
        """A worker's loop: runs ready nodes of the run being served, parks when there are none."""
        with self.token:
            try:
                while not self.closed:
                    run = self.run
                    if run is not None and run.ready and run.error is None and not run.done:
                        try:
                            run.work(caller=False)
                        except BaseException as e:  # noqa: B036 - reaches the run's caller
                            run.fail(e)
                        run.check_done()
                    del run  # a parked worker keeps no run's values
                    self.parked += 1
                    self.cond.wait()
                    self.parked -= 1
            finally:
                self.workers -= 1

    def close(self):
        with self.token:
            self.closed = True
            self.cond.notify_all()


class TokenRun:
    """One execution of a schedule by the caller and the token's workers."""

    def __init__(self, threads, schedule, values, results, count):
        self.threads = threads
        self.schedule = schedule
        self.deps = list(schedule.deps)
        self.values = values
        self.results = results
        self.token = threads.token
        self.caller_cond = threads.caller_cond  # the caller waits here for ready nodes, or the end
        self.caller_waiting = False
        self.spare = count - 1  # workers this run may use
        priority = schedule.priority
        self.ready = [(priority[i], i) for i in schedule.root_ids]
        heapq.heapify(self.ready)
        self.remaining = len(schedule.runners)
        self.running = 0  # heavy nodes running without the token
        self.done = not self.remaining
        self.error = None

    def fail(self, error):
        """Called with the token held: the first failure stops the run."""
        if self.error is None:
            self.error = error
        self.check_done()

    def check_done(self):
        """Called with the token held: the run is over once no node runs and none is left (or none
        can start: a failure, or a cycle); its caller is woken if it waits, no parked worker is."""
        if not self.running and (not self.remaining or self.error is not None or not self.ready):
            self.done = True
            if self.caller_waiting:
                self.caller_cond.notify()

    def wait_done(self, interruptible=True):
        """The caller, with the token held: waits for the nodes still running elsewhere."""
        while not self.done:
            self.caller_waiting = True
            try:
                self.caller_cond.wait()
            except BaseException:  # noqa: B036 - the caller's KeyboardInterrupt
                if interruptible:
                    raise
            finally:
                self.caller_waiting = False

    def _hand_over(self):
        """Called with the token held, before letting it go for a heavy node while nodes are ready:
        an idle thread (the caller, a parked worker, else a new worker) carries on with them."""
        threads = self.threads
        if not self.spare:  # a run on the caller alone (no node worth a second thread)
            return
        if self.caller_waiting:
            self.caller_cond.notify()
        elif threads.parked:
            threads.cond.notify()
        elif self.spare > threads.workers and not threads.closed:
            threads.workers += 1
            threads.submit(threads.serve)

    def work(self, caller):
        """Runs ready nodes with the token held; a worker returns when none is ready, the caller
        waits for the nodes running elsewhere until the run is over."""
        schedule = self.schedule
        runners, succ, deps, priority = schedule.runners, schedule.succ, self.deps, schedule.priority
        values, results, token, ready = self.values, self.results, self.token, self.ready
        timing = schedule.timing()
        heavy = None if schedule.calibrating() else schedule.heavy
        push, pop = heapq.heappush, heapq.heappop
        while self.error is None and self.remaining and not self.done:
            if not ready:
                if not self.running or not caller:
                    return  # (the caller: nothing ready and nothing running, check_done says why)
                self.caller_waiting = True
                self.caller_cond.wait()
                self.caller_waiting = False
                continue
            i = pop(ready)[1]
            try:
                if heavy is not None and heavy[i]:
                    self.running += 1
                    if ready:
                        self._hand_over()
                    token.release()
                    try:
                        runners[i](values, results)
                    finally:
                        _reacquire(token, self)
                        self.running -= 1
                elif timing is not None:
                    start = perf_counter()
                    runners[i](values, results)
                    seconds = perf_counter() - start
                    if seconds < timing[i]:
                        timing[i] = seconds
                else:
                    runners[i](values, results)
            except BaseException as e:  # noqa: B036 - any failure stops the run and reaches the caller
                self.fail(e)
                return
            self.remaining -= 1
            for s in succ[i]:
                left = deps[s] - 1
                deps[s] = left
                if not left:
                    push(ready, (priority[s], s))
            if not ready or not self.remaining:
                self.check_done()


def _reacquire(token, run):
    """Takes the token back after a heavy node, even through a KeyboardInterrupt (kept as the run's
    error): the code after it must hold the token."""
    while True:
        try:
            token.acquire()
            break
        except BaseException as e:  # noqa: B036
            if run.error is None:
                run.error = e
