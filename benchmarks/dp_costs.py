"""What a data-parallel CPU step costs besides its kernels (issue 79), each part alone.

    python benchmarks/dp_costs.py --models transformer,mlp

For each model (dp_step.py's: bench_models.PeModel, bench_cpu.FUSED, on ``--devices`` devices,
calibrated), printed:
- the scheduler's bookkeeping: the N-device schedule run through the pool with every node's runner a
  no-op (the token's heap, the dependency counts, hand-overs where a node is heavy), a node;
- ``plan.run_step``'s own work around a kernel, per op type of device 0: the op run with its kernel
  replaced by a no-op, hot, on the last run's values;
- the same ops with their kernels (not the updates, which would write the parameters), alone and hot:
  what the step's small nodes cost where nothing evicts their data;
- the engine's work outside the graph a step (feeds split, scope values gathered, saved, the last
  run's values freed, fetches merged), timed around those calls over ``--steps`` steps.
"""

import argparse
import collections
import os
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dp_step import build, _schedule  # noqa: E402


def scheduling(pe_model, repeats=200):
    sched, engine = _schedule(pe_model), pe_model.program._engine
    runners = list(sched.runners)
    heavy = list(sched.heavy)
    sched.runners[:] = [lambda values, results: None] * len(runners)
    try:
        for label, marks in (("calibrated heavy nodes", heavy), ("no heavy node", [False] * len(heavy))):
            sched.heavy = marks
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                engine._pool.run(sched, [{} for _ in range(engine.n)], [None] * 8)
                times.append(time.perf_counter() - start)
            median = sorted(times)[len(times) // 2]
            print(
                f"  scheduling, {label}: {len(runners)} nodes, {median * 1e6:.0f} us a run, "
                f"{median / len(runners) * 1e6:.2f} us a node"
            )
    finally:
        sched.heavy = heavy
        sched.runners[:] = runners


def per_op(pe_model):
    from pe_cli.executor import plan

    engine = pe_model.program._engine
    last, lods = engine.scopes._pending[0]
    glue, whole = collections.defaultdict(list), collections.defaultdict(list)
    for (_, device, _, _), step in list(engine._steps.items()):
        if device != 0:
            continue
        values = plan.Values(dict(last), lods)

        def call(step=step, values=values):
            plan.run_step(step, values, None)

        kernel = step.kernel
        step.kernel = lambda ins, attrs: {}
        try:
            glue[step.op.type].append(min(timeit.repeat(call, number=100, repeat=5)) / 100)
        finally:
            step.kernel = kernel
        if not step.updates:
            whole[step.op.type].append(min(timeit.repeat(call, number=20, repeat=5)) / 20)
    print("  op type (device 0)                 calls   run_step alone us   with its kernel, hot us")
    for op, t in sorted(glue.items(), key=lambda kv: -sum(whole.get(kv[0], kv[1]))):
        w = whole.get(op)
        print(
            f"  {op:34s} {len(t):5d} {sum(t) / len(t) * 1e6:12.2f} {sum(w) / len(w) * 1e6 if w else float('nan'):18.2f}"
        )
    print(f"  all ops but the updates, hot: {sum(sum(w) for w in whole.values()) * 1e3:.3f} ms a device")


def outside(pe_model, steps):
    from pe_cli.executor import parallel

    engine = pe_model.program._engine
    spent = collections.defaultdict(float)

    def timed(owner, name, label):
        original = getattr(owner, name)

        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start

        setattr(owner, name, wrapper)
        return original

    scopes = engine.scopes
    saved = {
        "split_feed": timed(parallel, "split_feed", "feeds split"),
        "merge": timed(engine, "_merge", "fetches merged"),
        "gather": timed(scopes, "gather", "values gathered"),
        "prepare_params": timed(scopes, "prepare_params", "parameters checked"),
    }
    save = scopes.save

    def save_then_free(values, lods):
        previous = list(scopes._pending)
        start = time.perf_counter()
        save(values, lods)
        middle = time.perf_counter()
        del previous[:]
        spent["values saved"] += middle - start
        spent["the last run's values freed"] += time.perf_counter() - middle

    scopes.save = save_then_free
    try:
        start = time.perf_counter()
        for _ in range(steps):
            pe_model.step()
        total = time.perf_counter() - start
    finally:
        parallel.split_feed = saved["split_feed"]
        for owner, name in ((engine, "merge"), (scopes, "gather"), (scopes, "prepare_params"), (scopes, "save")):
            vars(owner).pop("_merge" if name == "merge" else name, None)
    print(
        f"  outside the graph, a step of {total / steps * 1e3:.2f} ms: "
        + ", ".join(f"{label} {t / steps * 1e6:.0f} us" for label, t in spent.items())
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="transformer,mlp")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    for model in args.models.split(","):
        pe_model = build(model, args.devices)
        for _ in range(10):
            pe_model.step()
        print(f"== {model}, {args.devices} devices (load {os.getloadavg()[0]:.2f}):")
        scheduling(pe_model)
        per_op(pe_model)
        outside(pe_model, args.steps)


if __name__ == "__main__":
    main()
