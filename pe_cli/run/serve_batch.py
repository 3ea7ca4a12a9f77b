"""``pe serve``'s dynamic batching and its counters.

Requests, each read and checked already (serve_model.py's ``prepare``), wait in a queue; one
thread takes the first, gathers whatever else comes within ``max_wait`` seconds up to ``max_batch``
rows (waiting only while other requests are being read: a lone client never waits), runs them as one executor run and hands each request its own rows. At most ``max_queue``
requests are accepted and not yet answered; one more is refused at once (the server answers 503),
so memory stays bounded. A batch whose output is not one row per
sample (a model that reduces over its batch), or whose run fails, is run again one request at a
time, so a request's answer never depends on its neighbours.
"""

import collections
import concurrent.futures
import sys
import threading
import time

from .serve_model import join


class QueueFull(Exception):
    pass


class Job:
    def __init__(self, feeds, rows):
        self.feeds, self.rows = feeds, rows
        self.future = concurrent.futures.Future()


class Batcher:
    def __init__(self, model, max_batch, max_wait, max_queue, metrics):
        self.model, self.max_batch, self.max_wait, self.max_queue = model, max_batch, max_wait, max_queue
        self.metrics = metrics
        self.queue = collections.deque()
        self.ready = threading.Condition()
        self.stopped = False
        self.pending = 0  # requests accepted and not answered
        self.arriving = 0  # requests the server is reading and checking, not yet submitted
        self.thread = threading.Thread(target=self._loop, name="pe-serve-batcher", daemon=True)
        self.thread.start()

    def arrive(self, change):
        """A request begins (+1) or ends (-1) being read and checked: a batch waits for it."""
        with self.ready:
            self.arriving += change
            self.ready.notify()

    def submit(self, feeds, rows):
        """A Job queued for the next batch; QueueFull when ``max_queue`` accepted requests are not
        answered yet (waiting, gathered into a batch, or running)."""
        job = Job(feeds, rows)
        with self.ready:
            if self.pending >= self.max_queue:
                raise QueueFull()
            self.pending += 1
            self.queue.append(job)
            self.ready.notify()
        job.future.add_done_callback(self._answered)
        return job

    def _answered(self, future):
        with self.ready:
            self.pending -= 1

    def stop(self):
        """Ends the thread once the queue is empty (every accepted request is answered first)."""
        with self.ready:
            self.stopped = True
            self.ready.notify()
        self.thread.join()

    def _take(self):
        """The next batch of live jobs (a request that timed out while waiting is dropped), or None."""
        with self.ready:
            while not self.queue and not self.stopped:
                self.ready.wait()
            if not self.queue:
                return None
            batch, rows = [], 0
            deadline = time.monotonic() + self.max_wait
            while True:
                while self.queue and (not batch or rows + self.queue[0].rows <= self.max_batch):
                    job = self.queue.popleft()
                    if job.future.set_running_or_notify_cancel():
                        batch.append(job)
                        rows += job.rows
                left = deadline - time.monotonic()
                if rows >= self.max_batch or left <= 0 or self.queue or self.stopped or not self.arriving:
                    return batch
                self.ready.wait(left)

    def _loop(self):
        while True:
            batch = self._take()
            if batch is None:
                return
            if batch:
                self._run(batch)

    def _run(self, batch):
        sizes = [job.rows for job in batch]
        parts = None
        try:
            parts = self.model.split(self.model.run(join([job.feeds for job in batch])), sizes)
        except Exception:  # one request alone may fail where a batch failed: each gets its own answer
            if len(batch) == 1:
                self._fail(batch[0])
                return
        self.metrics.batch(sum(sizes))
        if parts is None:
            for job in batch:
                self._alone(job)
            return
        for job, part in zip(batch, parts):
            job.future.set_result(part)

    def _alone(self, job):
        try:
            job.future.set_result(self.model.split(self.model.run(job.feeds), [job.rows])[0])
        except Exception:
            self._fail(job)

    def _fail(self, job):
        job.future.set_exception(sys.exc_info()[1])


BUCKETS_MS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


class Metrics:
    """Counters in Prometheus' text format (one process's: each --workers process counts its own)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = collections.Counter()  # (path, status) -> count
        self.rows = 0
        self.latency = [0] * (len(BUCKETS_MS) + 1)
        self.latency_sum = 0.0
        self.batches = [0] * (len(BATCH_BUCKETS) + 1)
        self.batch_rows = 0

    def request(self, path, status, rows, seconds):
        with self.lock:
            self.requests[(path, status)] += 1
            self.rows += rows
            self.latency[_bucket(BUCKETS_MS, seconds * 1000)] += 1
            self.latency_sum += seconds

    def batch(self, rows):
        with self.lock:
            self.batches[_bucket(BATCH_BUCKETS, rows)] += 1
            self.batch_rows += rows

    def text(self, queued):
        with self.lock:
            out = [
                "# HELP pe_requests_total HTTP requests answered, by path and status.",
                "# TYPE pe_requests_total counter",
            ]
            for (path, status), n in sorted(self.requests.items()):
                out.append(f'pe_requests_total{{path="{path}",status="{status}"}} {n}')
            errors = sum(n for (_, status), n in self.requests.items() if status >= 400)
            out += [
                "# HELP pe_errors_total Requests answered with a 4xx or 5xx status.",
                "# TYPE pe_errors_total counter",
            ]
            out += [f"pe_errors_total {errors}", "# HELP pe_rows_total Rows predicted.", "# TYPE pe_rows_total counter"]
            out += [f"pe_rows_total {self.rows}", "# HELP pe_queued_requests Requests accepted and not answered yet."]
            out += ["# TYPE pe_queued_requests gauge", f"pe_queued_requests {queued}"]
            out += _histogram(
                "pe_request_seconds", "Request latency in seconds.", BUCKETS_MS, 1000, self.latency, self.latency_sum
            )
            out += _histogram(
                "pe_batch_rows", "Rows per executor run.", BATCH_BUCKETS, 1, self.batches, self.batch_rows
            )
        return "\n".join(out) + "\n"


def _bucket(bounds, value):
    for i, bound in enumerate(bounds):
        if value <= bound:
            return i
    return len(bounds)


def _histogram(name, help_text, bounds, scale, counts, total):
    out = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
    running = 0
    for bound, n in zip(bounds, counts):
        running += n
        out.append(f'{name}_bucket{{le="{bound / scale:g}"}} {running}')
    running += counts[-1]
    return out + [f'{name}_bucket{{le="+Inf"}} {running}', f"{name}_sum {total:g}", f"{name}_count {running}"]
