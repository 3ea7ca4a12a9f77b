"""What data parallelism costs on CPU devices: one device using every core inside its kernels against
N devices on the same cores (issue 55's target: N devices at most 1.1x the one device's step), and
where the time goes, per op kind.

    python benchmarks/parallel_overhead.py [--models mlp,lenet,lstm,ctr] [--devices 2] [--rounds 15]

Models: bench_models.py's MLP (batch 128), LeNet-5 (64) and LSTM text model (64 sequences of 10-40
steps), all with momentum SGD, and a sparse CTR model: 8 slots of 100,000-row ``is_sparse``
embeddings (16 wide, 1-4 ids a slot, summed), 3 x fc 400, batch 512, lazy Adam. Both configurations
are built once and timed in alternating rounds of 5 steps (the best and the median round are
printed), so a change of the machine's load falls on both. Then one profiled round of each gives
the kernel time of every op kind summed over the devices' threads: with N devices the kernels'
total should stay near the one device's; the step's excess over its kernel time divided by the
cores is the scheduling, collectives and Python work between kernels. Two figures the machine's
load moves little are printed beside the times, from getrusage over the timed rounds: the process's
CPU time a step (all threads) and its voluntary context switches a step (a thread blocking: a
hand-over between the executor's threads, or a wait for the GIL).
"""

import argparse
import os
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import MODELS, PeModel  # noqa: E402

CTR_VOCAB, CTR_DIM, CTR_SLOTS, CTR_BATCH = 100_000, 16, 8, 512


class CtrModel:
    """The sparse CTR model on ``devices`` CPU devices, fed 4 batches in turn."""

    def __init__(self, devices):
        import numpy as np
        import pe_cli.fluid as fluid

        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 1
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            slots = [fluid.layers.data(f"s{i}", [1], dtype="int64", lod_level=1) for i in range(CTR_SLOTS)]
            label = fluid.layers.data("label", [1], dtype="int64")
            pooled = [
                fluid.layers.sequence_pool(fluid.layers.embedding(s, [CTR_VOCAB, CTR_DIM], is_sparse=True), "sum")
                for s in slots
            ]
            hidden = fluid.layers.concat(pooled, axis=1)
            for _ in range(3):
                hidden = fluid.layers.fc(hidden, 400, act="relu")
            self.loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(hidden, 2), label))
            fluid.optimizer.Adam(0.001, lazy_mode=True).minimize(self.loss)
        self.scope, self.exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        self.exe.run(startup, scope=self.scope)
        self.program = (
            main
            if devices == 1
            else fluid.CompiledProgram(main).with_data_parallel(
                loss_name=self.loss.name, places=[fluid.CPUPlace()] * devices
            )
        )
        rng = np.random.default_rng(0)
        self.feeds, self.k = [], 0
        for _ in range(4):
            feed = {"label": rng.integers(0, 2, (CTR_BATCH, 1)).astype("int64")}
            for i in range(CTR_SLOTS):
                lengths = rng.integers(1, 5, CTR_BATCH)
                ids = rng.integers(0, CTR_VOCAB, (int(lengths.sum()), 1)).astype("int64")
                feed[f"s{i}"] = fluid.create_lod_tensor(ids, [lengths.tolist()], fluid.CPUPlace())
            self.feeds.append(feed)

    def step(self):
        self.k += 1
        return self.exe.run(self.program, feed=self.feeds[self.k % 4], fetch_list=[self.loss], scope=self.scope)


def build(model, devices):
    return CtrModel(devices) if model == "ctr" else PeModel(model, MODELS[model], devices)


def measure(models, devices, rounds, steps=5):
    from pe_cli.base import profiler

    for model in models:
        runs = {n: build(model, n) for n in (1, devices)}
        for run in runs.values():
            for _ in range(3):
                run.step()
        times, usage = {n: [] for n in runs}, {n: [] for n in runs}
        for _ in range(rounds):
            for n, run in runs.items():
                before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
                for _ in range(steps):
                    run.step()
                times[n].append((time.perf_counter() - start) / steps * 1e3)
                after = resource.getrusage(resource.RUSAGE_SELF)
                usage[n].append(
                    (
                        (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / steps * 1e3,
                        (after.ru_nvcsw - before.ru_nvcsw) / steps,
                    )
                )
        ops = {}
        for n, run in runs.items():
            with profiler.collect() as prof:
                for _ in range(steps):
                    run.step()
            ops[n] = {op: total / steps * 1e3 for op, (_, total, _, _) in prof.ops.items()}
        best = {n: min(t) for n, t in times.items()}
        print(
            f"\n{model}: step ms, best / median of {rounds} rounds: 1 device {best[1]:.2f} / "
            f"{statistics.median(times[1]):.2f}, {devices} devices {best[devices]:.2f} / "
            f"{statistics.median(times[devices]):.2f}; {devices} devices / 1: {best[devices] / best[1]:.2f}x"
        )
        ratios = [b / a for a, b in zip(times[1], times[devices])]
        print(
            f"  per round, {devices} devices / 1: median {statistics.median(ratios):.2f}x "
            f"({min(ratios):.2f}-{max(ratios):.2f}); median a step: CPU ms 1 device "
            f"{statistics.median(u[0] for u in usage[1]):.2f}, {devices} devices "
            f"{statistics.median(u[0] for u in usage[devices]):.2f}; voluntary context switches 1 device "
            f"{statistics.median(u[1] for u in usage[1]):.1f}, {devices} devices "
            f"{statistics.median(u[1] for u in usage[devices]):.1f}"
        )
        print(f"  {'op kind':34s} {'1 device':>9s} {f'{devices} devices':>10s}   kernel ms a step, all threads")
        for op in sorted(ops[devices], key=lambda o: -ops[devices][o])[:10]:
            print(f"  {op:34s} {ops[1].get(op, 0.0):9.2f} {ops[devices][op]:10.2f}")
        print(f"  {'all kernels':34s} {sum(ops[1].values()):9.2f} {sum(ops[devices].values()):10.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,lenet,lstm,ctr")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    import platform

    print(f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}), load {os.getloadavg()[0]:.1f}")
    measure(args.models.split(","), args.devices, args.rounds)


if __name__ == "__main__":
    main()
