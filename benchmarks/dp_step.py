"""Two CPU devices against one on the bench's rows (issue 79: 2 devices <= 1.1x one device's step),
and where a 2-device step's time goes.

    python benchmarks/dp_step.py --models mlp,lenet,transformer,ctr --rounds 24 --steps 4
    python benchmarks/dp_step.py --models transformer --variants base,heavy60,alone
    python benchmarks/dp_step.py --models mlp --strategies fused,fused+far,fused+far+fao
    python benchmarks/dp_step.py --models transformer --rounds 4 --timeline 30 --node-kinds 30
    python benchmarks/dp_step.py --models mlp --rounds 2 --timeline 100 --trace

The models are bench_models.py's (``PeModel``: the bench's batches, weights and feeds), built with
``bench_cpu.FUSED``'s build strategy (``--strategies``: also with fuse_all_reduce_ops, +far, and
fuse_all_optimizer_ops, +fao) on 1 device and on ``--devices`` devices in one process. Every
configuration is timed in rounds of ``--steps`` steps, each after one untimed step, in a new random
order each round: a change of the machine's load falls on all, and no configuration always follows
the same one (in a rotated order, two identical configurations differed by 3-7%, the one right after
the 1-device configuration the slower). Printed: each round's ms a step and the load; per
configuration the best and median round and the process's CPU time a step (getrusage, all threads);
the medians of the per-round ratios against the 1-device configuration and the first N-device one,
over all rounds and over the quiet ones (the first 1-device configuration within ``QUIET`` of its
best round: on a shared machine, rounds where another process took a core measure another regime).

``--variants``: the N-device program is also timed under variants of the executor (``variant()``:
the calibrated heavy nodes chosen again at another threshold, the caller alone, the code a change
replaced), switched between rounds on the same built program.

``--timeline K``: K steps of the N-device program with every node's start and end recorded (per
thread); printed for the best step: each thread's time in heavy nodes (run without the token) and in
the others, the time both threads were in a heavy node at once, the node kinds' summed time, and the
reduces' start after their inputs; with ``--trace`` every node of the best step two threads ran,
one column per thread. ``--node-kinds K``: each node kind's summed time a step with the
caller alone and with the threads (how much slower kernels run beside the other device's).
"""

import argparse
import collections
import os
import random
import re
import resource
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from bench_cpu import FUSED  # noqa: E402
from bench_models import MODELS, PeModel, strategy_of  # noqa: E402


def variant(name):
    """A function switching a built N-device program to the executor variant ``name``: ``base`` (pe's
    calibrated schedule), ``heavyUS`` (nodes of at least US microseconds, calibrated, run without the
    token), ``gemmUS`` (as base, and the GEMM nodes of at least US microseconds too), ``alone`` (the
    caller runs every node, no second thread), ``perdevice`` (a thread per device whatever the
    other processes' load, as before 2026-11-28's ``threads.run_threads``). (``oldholders``, the update check's
    reference count as it was before 2026-11-28, went with the reference counts: executor/donation.py.)"""
    from pe_cli.executor import parallel_scheduler as ps

    global _RUN_THREADS
    from pe_cli.kernels.cpu import runtime

    if _RUN_THREADS is None:
        _RUN_THREADS = runtime.run_threads
    match = re.fullmatch(r"(base|alone|perdevice|heavy|gemm)(\d*)", name)
    if not match or bool(match.group(2)) == (match.group(1) in ("base", "alone", "perdevice")):
        raise ValueError(f"unknown variant {name!r}: base, alone, perdevice, heavyUS or gemmUS")
    kind, us = match.group(1), float(match.group(2) or 0) * 1e-6

    def apply(pe_model):
        sched = _schedule(pe_model)
        seconds = [0.0 if t == float("inf") else t for t in sched.seconds]
        heavy = [t >= ps.HEAVY_SECONDS for t in seconds]
        if kind == "heavy":
            heavy = [t >= us for t in seconds]
        elif kind == "gemm":
            heavy = [h or (t >= us and _label(n) in GEMMS) for h, t, n in zip(heavy, seconds, sched.nodes)]
        sched.heavy = heavy
        sched.shared = any(heavy) and kind != "alone"
        runtime.run_threads = _one_per_device if kind == "perdevice" else _RUN_THREADS

    return apply


def _one_per_device(devices):
    return devices


_RUN_THREADS = None  # pe's runtime.run_threads, kept by variant() before it swaps one in


GEMMS = {"mul", "mul_grad", "matmul", "matmul_v2", "fused_gemm_epilogue", "fused_gemm_epilogue_grad"}


QUIET = 1.15  # a round counts as quiet when its 1-device time is within this of the best one
EXTRA = {"far": "fuse_all_reduce_ops", "fao": "fuse_all_optimizer_ops"}


def options(strategy):
    """The build strategy's options named by ``strategy``: "fused" and "+far", "+fao" (EXTRA)."""
    first, *extra = strategy.split("+")
    if first != "fused" or any(e not in EXTRA for e in extra):
        raise ValueError(f"unknown strategy {strategy!r}: fused, then +far and +fao")
    return dict(FUSED, **{EXTRA[e]: True for e in extra})


def build(model, devices, strategy="fused"):
    return PeModel(model, MODELS[model], devices, strategy_of(options(strategy)))


def _schedule(pe_model):
    engine = pe_model.program._engine
    (sched,) = engine._schedules.values()
    return sched


def timeline(pe_model, steps):
    """Per step: [(thread, node index, start, end)]; the schedule's runners wrapped while it runs."""
    import threading

    sched = _schedule(pe_model)
    original = list(sched.runners)
    events = []

    def wrap(i, run):
        def timed(values, results):
            start = time.perf_counter()
            run(values, results)
            events.append((threading.get_ident(), i, start, time.perf_counter()))

        return timed

    sched.runners[:] = [wrap(i, r) for i, r in enumerate(original)]
    per_step = []
    try:
        for _ in range(steps):
            events.clear()
            start = time.perf_counter()
            pe_model.step()
            per_step.append((time.perf_counter() - start, start, list(events)))
    finally:
        sched.runners[:] = original
    return sched, per_step


def _label(node):
    return node.op.type if node.op is not None else node.kind


def report_timeline(sched, per_step):
    wall, t0, events = min(per_step, key=lambda s: s[0])
    events.sort(key=lambda e: e[2])
    kinds = collections.defaultdict(lambda: [0, 0.0])
    busy = collections.defaultdict(float)
    for tid, i, s, e in events:
        k = kinds[_label(sched.nodes[i])]
        k[0] += 1
        k[1] += e - s
        busy[tid] += e - s
    first, last = events[0][2], max(e[3] for e in events)
    idle, covered_to = 0.0, first
    for _, _, s, e in events:
        if s > covered_to:
            idle += s - covered_to
        covered_to = max(covered_to, e)
    print(
        f"  best of {len(per_step)} steps: {wall * 1e3:.2f} ms, {len(events)} nodes; before the first "
        f"node {(first - t0) * 1e3:.2f} ms, after the last {(t0 + wall - last) * 1e3:.2f} ms; no node "
        f"running {idle * 1e3:.2f} ms"
    )
    both = 0.0  # time with both threads inside a heavy node
    heavy_spans = {tid: [(s, e) for t, i, s, e in events if t == tid and sched.heavy[i]] for tid in busy}
    if len(heavy_spans) == 2:
        a, b = heavy_spans.values()
        both = sum(max(0.0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)
    for tid, b in busy.items():
        mine = [(i, e - s) for t, i, s, e in events if t == tid]
        heavy = sum(d for i, d in mine if sched.heavy[i])
        print(
            f"  thread {tid % 100000:5d}: {len(mine)} nodes, {b * 1e3:.2f} ms in nodes: heavy "
            f"{heavy * 1e3:.2f} ms, the others (with the token) {(b - heavy) * 1e3:.2f} ms; "
            f"outside nodes {(last - first - b) * 1e3:.2f} ms"
        )
    print(f"  both threads in a heavy node at once: {both * 1e3:.2f} ms")
    small = [(e - s) for _, i, s, e in events if e - s < 100e-6]
    print(
        f"  nodes under 100 us: {len(small)}, {sum(small) * 1e3:.2f} ms; median {statistics.median(small) * 1e6:.1f} us"
        if small
        else "  no node under 100 us"
    )
    for name, (n, t) in sorted(kinds.items(), key=lambda kv: -kv[1][1])[:18]:
        print(f"  {name:34s} {n:4d} {t * 1e3:8.3f} ms")
    end = {i: e for _, i, _, e in events}
    lags = []
    for _, i, s, e in events:
        node = sched.nodes[i]
        if node.kind in ("all_reduce", "reduce", "fused_all_reduce"):
            ready = max(end.get(sched.nodes.index(v.producer), s) for v in node.inputs if v.producer is not None)
            lags.append(s - ready)
    if lags:
        print(
            f"  all-reduce / reduce: {len(lags)} nodes, their start after their inputs' median "
            f"{statistics.median(lags) * 1e6:.0f} us, max {max(lags) * 1e6:.0f} us"
        )


def trace(sched, per_step):
    """Every node of the best step that two threads ran (else the best step): its start (us from the
    step's), its thread as a column, kind, device and us; H: a heavy node."""
    shared = [p for p in per_step if len({e[0] for e in p[2]}) > 1]
    wall, t0, events = min(shared or per_step, key=lambda p: p[0])
    events = sorted(events, key=lambda e: e[2])
    threads = list(dict.fromkeys(e[0] for e in events))
    print(f"  trace of a {wall * 1e3:.2f} ms step:")
    for tid, i, s, e in events:
        node = sched.nodes[i]
        print(
            f"  {(s - t0) * 1e6:8.0f} {'':{threads.index(tid) * 40}}{_label(node)[:24]:24s} "
            f"d{node.device if node.device is not None else '*'} {(e - s) * 1e6:6.0f}{' H' if sched.heavy[i] else ''}"
        )


def node_kinds(pe_model, steps):
    """Per node kind (H: heavy), the median over ``steps`` profiled steps of its summed ms, with the
    caller alone and with the threads (the variants ``alone`` and ``base``, twice each, in turn)."""
    out = {}
    for name in ("alone", "base", "alone", "base"):
        variant(name)(pe_model)
        sched, per_step = timeline(pe_model, steps)
        kinds = collections.defaultdict(list)
        for _, _, events in per_step:
            summed = collections.defaultdict(float)
            for _, i, s, e in events:
                summed[("H " if sched.heavy[i] else "  ") + _label(sched.nodes[i])] += e - s
            for key, value in summed.items():
                kinds[key].append(value)
        out[name] = {k: statistics.median(v) for k, v in kinds.items()}
        print(f"  {name}: median step {statistics.median(p[0] for p in per_step) * 1e3:.2f} ms")
    alone, threads = out["alone"], out["base"]
    for key in sorted(alone, key=lambda k: -alone[k])[:16]:
        print(f"  {key:36s} alone {alone[key] * 1e3:7.3f} ms, with the threads {threads.get(key, 0) * 1e3:7.3f}")
    for flag, what in (("H", "heavy nodes"), (" ", "the others")):
        print(
            f"  {what}: alone {sum(v for k, v in alone.items() if k[0] == flag) * 1e3:.2f} ms, with the threads "
            f"{sum(v for k, v in threads.items() if k[0] == flag) * 1e3:.2f}"
        )


def measure(model, devices, rounds, steps, strategies, names, show_timeline, kinds=0, show_trace=False):
    runs = {}
    for strategy in strategies:
        for n in (1, devices):
            runs[(n, strategy)] = build(model, n, strategy)
            for _ in range(8):
                runs[(n, strategy)].step()  # warm-up, and the N-device schedule's calibration
    switch = {v: variant(v) for v in names}
    configs = [(1, st, "") for st in strategies] + [(devices, st, v) for st in strategies for v in names]
    times, cpu = {c: [] for c in configs}, {c: [] for c in configs}
    order = random.Random(0)
    for r in range(rounds):
        for c in order.sample(configs, len(configs)):  # a new order each round (see the module's docstring)
            run = runs[c[:2]]
            if c[2]:
                switch[c[2]](run)
            run.step()  # untimed: a configuration never times the step after another's
            used = resource.getrusage(resource.RUSAGE_SELF)
            start = time.perf_counter()
            for _ in range(steps):
                run.step()
            times[c].append((time.perf_counter() - start) / steps * 1e3)
            after = resource.getrusage(resource.RUSAGE_SELF)
            cpu[c].append((after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime) / steps * 1e3)
        print(
            f"{model} r{r}: "
            + ", ".join(f"{_name(c)} {times[c][-1]:.2f}" for c in configs)
            + f" ms, load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    print(f"== {model} (load {os.getloadavg()[0]:.2f}):")
    for c, t in times.items():
        print(
            f"  {_name(c)}: best {min(t):.2f} ms, median {statistics.median(t):.2f}; "
            f"CPU {statistics.median(cpu[c]):.2f} ms a step"
        )
    one = configs[0]
    best = min(times[one])
    quiet = [r for r, t in enumerate(times[one]) if t <= QUIET * best]
    print(f"  quiet rounds (1d {one[1]} within {QUIET}x of its best): {len(quiet)} of {rounds}")
    for c in configs[1:]:
        if quiet and c[0] != 1:
            ratios = [times[c][r] / times[one][r] for r in quiet]
            print(
                f"  {_name(c)} / {_name(one)}, quiet rounds: median {statistics.median(ratios):.3f}"
                + "".join(
                    f"; / {_name(ref)} {statistics.median(times[c][r] / times[ref][r] for r in quiet):.3f}"
                    for ref in configs[1:]
                    if ref != c and ref[0] == c[0] and ref == configs[len(strategies)]
                )
            )
    for c in configs[1:]:
        base = one if c[0] == 1 else (1, c[1], "")
        for ref in dict.fromkeys([base, one, (devices, strategies[0], names[0])]):
            if ref != c and (ref[0] == 1 or c[0] != 1):
                ratios = [a / b for a, b in zip(times[c], times[ref])]
                print(
                    f"  {_name(c)} / {_name(ref)}: median of the per-round ratios "
                    f"{statistics.median(ratios):.3f}, best / best {min(times[c]) / min(times[ref]):.3f}"
                )
    if kinds:
        print(f"  node kinds, {devices}d {strategies[0]}:")
        node_kinds(runs[(devices, strategies[0])], kinds)
    if show_timeline:
        c = (devices, strategies[0], names[0])
        switch[c[2]](runs[c[:2]])
        print(f"  timeline, {_name(c)}:")
        sched, per_step = timeline(runs[c[:2]], show_timeline)
        report_timeline(sched, per_step)
        if show_trace:
            trace(sched, per_step)
    return times


def _name(config):
    n, strategy, v = config
    return f"{n}d {strategy}{' ' + v if v else ''}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,lenet,transformer,ctr")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument(
        "--strategies",
        default="fused",
        help="comma-separated build strategies: fused (bench_cpu.FUSED), +far "
        "(fuse_all_reduce_ops), +fao (fuse_all_optimizer_ops), e.g. fused,fused+far+fao",
    )
    parser.add_argument("--variants", default="base", help="comma-separated executor variants (variant())")
    parser.add_argument("--timeline", type=int, default=0, metavar="K")
    parser.add_argument("--trace", action="store_true", help="with --timeline: every node of its best step")
    parser.add_argument(
        "--node-kinds",
        type=int,
        default=0,
        metavar="K",
        help="each node kind's ms a step, the caller alone against the threads (K steps each)",
    )
    args = parser.parse_args()
    names = args.variants.split(",")
    strategies = args.strategies.split(",")
    try:
        for v in names:
            variant(v)
        for st in strategies:
            options(st)
    except ValueError as e:
        parser.error(str(e))
    for model in args.models.split(","):
        measure(
            model, args.devices, args.rounds, args.steps, strategies, names, args.timeline, args.node_kinds, args.trace
        )


if __name__ == "__main__":
    main()
