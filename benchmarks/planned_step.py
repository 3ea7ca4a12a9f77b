"""Planned CPU steps (the default; their segments compiled) against op-by-op steps (PE_PLANNED_STEP=0),
on 1 and 2 devices, quiet and beside a busy process, in one run.

    python benchmarks/planned_step.py --models mlp,seed --rounds 8 --steps 20
    python benchmarks/planned_step.py --models lstm,ctr --fresh-batches   # new sequence lengths every step

The models are bench_models.py's (``PeModel``: MLP 784-256-256-10 at batch 128, the tiny X -> fc ->
mean model at batch 10, momentum SGD; the default build strategy, or with ``--fused``
bench_cpu.FUSED's, whose fused_gemm_epilogue ops have launch forms too). Four configurations a model (1 or 2 devices, planned or not), each built once
and warmed (a planned one plans and compiles on its second step), then timed in ``--rounds`` rounds
of ``--steps`` steps in a new random order each round; the second half of the rounds runs beside
a competing busy process (``while True: pass``). Printed per configuration: the median and best
round (ms a step), and the ratios 2 devices / 1 device, planned / op by op, from the per-round
medians.

For the planned configurations also: the segments' share of a step's wall time (time inside the
compiled segments' calls, which hold no GIL once their arguments are unboxed, summed over the
devices; the GIL-held share of a 1-device step is 1 minus it), the host time per op ((wall -
segment time) / ops: the executor's feeds, scope, fetches and the segments' argument checks,
spread over the ops), and the seconds spent compiling (or loading) segments.

``--fresh-batches`` (lstm, ctr) feeds a new batch every timed step, with new sequence lengths, as training on
real data does: no signature comes twice, so no plan serves them (docs/PARALLEL.md, "Feeds that change shape
every batch"); the planned configurations then run op by op after their signature's count.
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from bench_cpu import FUSED  # noqa: E402 -- after the path set above
import bench_ctr  # noqa: E402
from bench_models import MODELS, PeModel, strategy_of, synthetic_batch  # noqa: E402

CONFIGS = [(1, False), (1, True), (2, False), (2, True)]


def cpu_line():
    """The CPU's model name and its widest vector extension, from lscpu."""
    out = subprocess.run(["lscpu"], check=False, capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    flags = fields.get("Flags", "").split()
    width = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE"
    return f"{fields.get('Model name', '?').strip()}, {fields.get('CPU(s)', '?').strip()} CPUs, {width}"


class SegmentClock:
    """Times every call of a compiled segment (patched around Segment.compile's function)."""

    def __init__(self):
        from pe_cli.executor import segment

        self.inside = 0.0
        original = segment.Segment.compile
        clock = self

        def compile(seg):
            original(seg)
            fn = seg.fn

            def timed(*args):
                start = time.perf_counter()
                try:
                    return fn(*args)
                finally:
                    clock.inside += time.perf_counter() - start

            seg.fn = timed

        segment.Segment.compile = compile


def build(model, devices, planned, fused=False):
    os.environ["PE_PLANNED_STEP"] = "1" if planned else "0"
    os.environ["PE_SEGMENT_COMPILE_AFTER"] = "0"  # the segments compiled from their first run (what is timed)
    m = PeModel(model, MODELS[model], devices, strategy_of(FUSED) if fused else None)
    for _ in range(8):  # the second step plans and compiles
        m.step()
    return m


def ops_of(m, devices):
    return len(m.loss.block.program.global_block().ops) * devices


def fresh_feeds(model, count):
    """``count`` batches of ``model`` (lstm, ctr), each with new sequence lengths: what training on real data
    feeds, no two of one signature (a plan is kept per signature: these run op by op)."""
    import pe_cli.fluid as fluid

    if model not in ("lstm", "ctr"):
        raise SystemExit(f"--fresh-batches: {model} has no sequences (lstm, ctr)")
    batch = MODELS[model]
    if model == "ctr":
        return [bench_ctr.pe_feed(fluid, batch, seed=1000 + i) for i in range(count)]
    feeds = []
    for i in range(count):
        data = synthetic_batch(model, batch, seed=1000 + i)
        x = fluid.create_lod_tensor(data["x"], [data["lengths"].tolist()], fluid.CPUPlace())
        feeds.append({"x": x, "label": data["label"]})
    return feeds


def rounds(models, args, clock):
    times = {(mo, c): [] for mo, cs in models.items() for c in cs}
    fresh = {mo: fresh_feeds(mo, args.rounds * (args.steps + 1)) for mo in models} if args.fresh_batches else {}
    served = {key: iter(fresh[key[0]]) for key in times if fresh}
    shares = {key: [] for key in times if key[1][1]}
    busy = None
    for r in range(args.rounds):
        if r == args.rounds // 2:
            busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(0.5)
        keys = list(times)
        random.shuffle(keys)
        for key in keys:
            planned, m = key[1][1], models[key[0]][key[1]]
            os.environ["PE_PLANNED_STEP"] = "1" if planned else "0"
            feeds = served.get(key)
            if feeds is not None:
                m.feed = next(feeds)
            m.step()
            inside, start = clock.inside, time.perf_counter()
            for _ in range(args.steps):
                if feeds is not None:
                    m.feed = next(feeds)
                m.step()
            wall = (time.perf_counter() - start) / args.steps
            times[key].append(wall)
            if planned:
                shares[key].append(((clock.inside - inside) / args.steps, wall))
    if busy is not None:
        busy.kill()
    return times, shares


def report(models, times, shares, args):
    half = args.rounds // 2
    for label, part in (("quiet", slice(0, half)), ("busy", slice(half, None))):
        print(f"-- {label} ({'one competing busy process' if label == 'busy' else 'no competitor'}):")
        for model, configs in models.items():
            med = {c: statistics.median(times[(model, c)][part]) for c in configs}
            for c in configs:
                devices, planned = c
                line = f"  {model:5s} {devices} dev {'planned ' if planned else 'op by op'}"
                line += f" median {med[c] * 1e3:7.3f} ms  best {min(times[(model, c)][part]) * 1e3:7.3f} ms"
                if planned:
                    seg = statistics.median(s / w for s, w in shares[(model, c)][part])
                    host = statistics.median((w - s / devices) for s, w in shares[(model, c)][part])
                    ops = ops_of(configs[c], devices) // devices
                    line += f"  in segments {seg / devices:5.1%} a device  host {host / ops * 1e6:5.2f} us/op"
                print(line)
            for planned in (False, True):
                ratio = med[(2, planned)] / med[(1, planned)]
                print(f"  {model:5s} 2 dev / 1 dev {'planned ' if planned else 'op by op'}: {ratio:.2f}")
            for devices in (1, 2):
                ratio = med[(devices, True)] / med[(devices, False)]
                print(f"  {model:5s} {devices} dev planned / op by op: {ratio:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,seed")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--fused", action="store_true", help="bench_cpu.FUSED's build strategy (fused GEMM epilogues)")
    parser.add_argument(
        "--fresh-batches",
        action="store_true",
        help="lstm, ctr: a new batch (new sequence lengths) every timed step, as real data, not the one batch repeated",
    )
    args = parser.parse_args()
    clock = SegmentClock()
    from pe_cli.executor import step_plan

    print(f"CPU: {cpu_line()}; load before: {os.getloadavg()[0]:.2f}")
    models = {}
    for model in args.models.split(","):
        models[model] = {c: build(model, *c, fused=args.fused) for c in CONFIGS}
    print(f"segments compiled or loaded in {step_plan.compile_seconds():.1f} s")
    times, shares = rounds(models, args, clock)
    report(models, times, shares, args)
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
