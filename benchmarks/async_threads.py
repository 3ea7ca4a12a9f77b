"""AsyncExecutor's throughput: examples per second training the CTR model of
examples/async_executor.py for one pass over its files with 1 thread, with 2 threads and with 2
worker processes (Hogwild; the default on Linux), side by side in the same run, quiet and with
one competing busy process.

Beside them, the machine's own ceiling for two workers: two independent copies of the 1-thread pass
run at once, each in its own process on its own parameters (nothing shared, nothing to wait for).
What 2 cores give two such processes over one is all Hogwild can hope for; on a shared VM it is
often well under 2x.

The three are measured in turns (1 thread, 2 threads, ceiling; again), so a change in the machine's
speed hits all of them; each figure is the best of ``--rounds`` passes, after a warm-up pass.

    .venv/bin/python benchmarks/async_threads.py [--files 4] [--lines 20000] [--rounds 5]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
import async_executor as example  # noqa: E402
import ctr_data  # noqa: E402

import pe_cli.fluid as fluid  # noqa: E402
from pe_cli.kernels.cpu.runtime import threads as cpu_threads  # noqa: E402


class Trainer:
    """The CTR model with Adam, initialized once, trained a pass at a time."""

    def __init__(self, files, feed):
        self.files, self.feed = files, feed
        self.main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(self.main, startup), fluid.unique_name.guard():
            _, self.cost = example.network()
            fluid.optimizer.Adam(learning_rate=0.003).minimize(self.cost)
        self.scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=self.scope)
        self.runner = fluid.AsyncExecutor()
        self.lines = sum(sum(1 for _ in open(f)) for f in files)
        self.one_pass(1)  # warm-up: kernels compiled

    def one_pass(self, threads, workers="threads"):
        """Seconds for one pass over the files on ``threads`` Hogwild workers (threads or processes)."""
        os.environ["PE_ASYNC_WORKERS"] = workers
        with fluid.scope_guard(self.scope):
            start = time.perf_counter()
            self.runner.run(self.main, self.feed, self.files, threads, [self.cost.name])
            return time.perf_counter() - start

    def two_copies(self):
        """Seconds until two independent 1-thread passes, run at once in two processes, both end."""
        cpu_threads.before_fork()
        start = time.perf_counter()
        pids = []
        for _ in range(2):
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    cpu_threads.one_thread_after_fork()  # as each Hogwild worker computes
                    self.one_pass(1)
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        for pid in pids:
            if os.waitpid(pid, 0)[1]:
                raise SystemExit("a copy of the 1-thread pass failed")
        return time.perf_counter() - start


def measure(trainer, rounds):
    best = {"1 thread": None, "2 threads": None, "2 processes": None, "ceiling": None}
    for _ in range(rounds):
        for key, took in (
            ("1 thread", trainer.one_pass(1)),
            ("2 threads", trainer.one_pass(2)),
            ("2 processes", trainer.one_pass(2, "processes")),
            ("ceiling", trainer.two_copies() / 2),
        ):
            best[key] = took if best[key] is None else min(best[key], took)
    return {key: trainer.lines / took for key, took in best.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        files = ctr_data.write(d, files=args.files, n=args.lines)
        feed = fluid.DataFeedDesc(os.path.join(d, "data.proto"))
        feed.set_batch_size(256)
        trainer = Trainer(files, feed)
        print(
            f"CTR model, batch 256, {args.files} files x {args.lines} lines, examples/s "
            f"(best of {args.rounds}; {os.cpu_count()} cores):"
        )
        print(
            f"{'machine':<7} {'1 thread':>10} {'2 threads':>18} {'2 processes':>18} "
            f"{'ceiling: 2 independent copies':>32}"
        )
        for busy in (False, True):
            competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
            try:
                time.sleep(0.5 if busy else 0)
                r = measure(trainer, args.rounds)
            finally:
                if competitor is not None:
                    competitor.kill()
                    competitor.wait()
            one, two, procs, ceiling = r["1 thread"], r["2 threads"], r["2 processes"], r["ceiling"]
            print(
                f"{'busy' if busy else 'quiet':<7} {one:>10,.0f} {two:>10,.0f} ({two / one:.2f}x)"
                f" {procs:>10,.0f} ({procs / one:.2f}x) {ceiling:>23,.0f} ({ceiling / one:.2f}x)",
                flush=True,
            )


if __name__ == "__main__":
    main()
