"""AsyncExecutor's throughput: examples per second training the CTR model of
examples/async_executor.py for one pass over its files with 1 thread and with 2 (Hogwild), side by
side in the same run, best of 3 passes each (the first pass of each is a warm-up).

    .venv/bin/python benchmarks/async_threads.py [--files 4] [--lines 20000]
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
import async_executor as example  # noqa: E402
import ctr_data  # noqa: E402

import pe_cli.fluid as fluid  # noqa: E402


def examples_per_second(threads, files, feed, passes=3):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        _, avg_cost = example.network()
        fluid.optimizer.Adam(learning_rate=0.003).minimize(avg_cost)
    with fluid.scope_guard(fluid.Scope()):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        runner = fluid.AsyncExecutor()
        runner.run(main, feed, files, threads, [avg_cost.name])        # warm-up (kernels compiled)
        best = None
        for _ in range(passes):
            start = time.perf_counter()
            runner.run(main, feed, files, threads, [avg_cost.name])
            took = time.perf_counter() - start
            best = took if best is None else min(best, took)
    lines = sum(sum(1 for _ in open(f)) for f in files)
    return lines / best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=4)
    parser.add_argument("--lines", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        files = ctr_data.write(d, files=args.files, n=args.lines)
        feed = fluid.DataFeedDesc(os.path.join(d, "data.proto"))
        feed.set_batch_size(256)
        one = examples_per_second(1, files, feed)
        two = examples_per_second(2, files, feed)
    print(f"CTR model, batch 256, {args.files} files x {args.lines} lines: 1 thread {one:,.0f} examples/s, "
          f"2 threads {two:,.0f} examples/s ({two / one:.2f}x)")


if __name__ == "__main__":
    main()
