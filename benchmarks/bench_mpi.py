"""Several processes over MPI: what a process all-reduce costs here, 2 processes against 1 on
LeNet-5, and a scaling model for many hosts.

    .venv/bin/python benchmarks/bench_mpi.py [--steps 20] [--json out.json]

1. MPI all-reduce between 2 local ranks (pe_cli/distributed/processes.py: Allgather + rank-order sum)
   for float32 messages of 4 KB..32 MB: the median of 10 calls each, then a least-squares fit
   t = latency + bytes / bandwidth.
2. LeNet-5 (momentum SGD, global batch 64): the median step time of 1 process x 1 device and of
   2 processes x 1 device (32 rows each, under mpiexec -n 2), three alternating runs, the best kept.
3. The scaling model: weak scaling (each host keeps a batch of 64), ring all-reduce of the
   gradients after the backward pass (no overlap): t_comm = 2(p-1) a + 2(p-1)/p * S / B, step =
   t_compute + t_comm, efficiency = t_compute / step, for LeNet-5 and a 25M-parameter MLP
   (784-4096-4096-1000) on 2..64 hosts at 10 and 100 Gb/s. t_compute is measured here (1 process,
   1 thread);
   link latency a is assumed (25 us at 10 Gb/s, 5 us at 100 Gb/s: typical Ethernet / RDMA).
Each measurement runs in its own process (the driver starts mpiexec), so ranks that wait in MPI
(which polls) never share the machine with a single-process measurement.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SIZES = [4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20, 32 << 20]
LINKS = {"10 Gb/s": (25e-6, 10e9 / 8), "100 Gb/s": (5e-6, 100e9 / 8)}
HOSTS = [2, 4, 8, 16, 32, 64]


def _net(model):
    import pe_cli.fluid as fluid

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        label = fluid.layers.data("label", shape=[1], dtype="int64")
        if model == "lenet":
            x = fluid.layers.data("x", shape=[1, 28, 28])
            h = fluid.layers.conv2d(x, 6, 5, padding=2, act="relu")
            h = fluid.layers.pool2d(h, 2, pool_stride=2)
            h = fluid.layers.conv2d(h, 16, 5, act="relu")
            h = fluid.layers.pool2d(h, 2, pool_stride=2)
            sizes, classes = [120, 84], 10
        else:
            h = x = fluid.layers.data("x", shape=[784])
            sizes, classes = [4096, 4096], 1000
        for n in sizes:
            h = fluid.layers.fc(h, n, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, classes), label))
        fluid.optimizer.Momentum(0.01, 0.9).minimize(loss)
    params = sum(int(np.prod(p.shape)) for p in main.all_parameters())
    return main, startup, loss, x.shape[1:], classes, params


def step_times(model, trainers, rank, steps, batch=64):
    """Median step time of ``model`` on this process's share of a global batch of ``batch``."""
    import pe_cli.fluid as fluid

    main, startup, loss, shape, classes, params = _net(model)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    strategy = fluid.BuildStrategy()
    strategy.fuse_all_reduce_ops = True
    os.environ["CPU_NUM"] = "1"
    pe = fluid.ParallelExecutor(
        False, loss_name=loss.name, main_program=main, build_strategy=strategy, num_trainers=trainers, trainer_id=rank
    )
    rng = np.random.default_rng(rank)
    share = batch // trainers
    feed = {
        "x": rng.standard_normal((share, *shape)).astype("float32"),
        "label": rng.integers(0, classes, (share, 1)).astype("int64"),
    }
    times = []
    for i in range(steps + 3):
        start = time.perf_counter()
        pe.run([loss.name], feed=feed)
        if i >= 3:
            times.append(time.perf_counter() - start)
    return {"step_s": statistics.median(times), "params": params}


def allreduce_times():
    from pe_cli.distributed import processes

    group = processes.group(processes.world_size(), processes.world_rank())
    out = {}
    for size in SIZES:
        a = np.ones(size // 4, np.float32)
        group.comm.Barrier()
        times = []
        for _ in range(10):
            start = time.perf_counter()
            group.all_reduce([a])
            times.append(time.perf_counter() - start)
        out[size] = statistics.median(times)
    return out, group.rank


def _worker(args):
    from pe_cli.distributed import processes

    if args.worker == "allreduce":
        result, rank = allreduce_times()
    else:
        size = processes.world_size()
        rank = processes.world_rank() if size > 1 else 0
        result = step_times(args.worker, size, rank, args.steps)
    if rank == 0:
        print(json.dumps(result))


def _mpi(what, steps, n=2, threads=None):
    mpiexec = Path(sys.executable).parent / "mpiexec"
    cmd = [
        str(mpiexec if mpiexec.exists() else "mpiexec"),
        "-n",
        str(n),
        sys.executable,
        __file__,
        "--worker",
        what,
        "--steps",
        str(steps),
    ]
    done = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, PYTHONPATH=str(ROOT), **({"PE_NUM_THREADS": str(threads)} if threads else {})),
    )
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def ring(p, nbytes, latency, bandwidth):
    return 2 * (p - 1) * latency + 2 * (p - 1) / p * nbytes / bandwidth


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--json")
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        return _worker(args)
    measured = {int(k): v for k, v in _mpi("allreduce", args.steps).items()}
    x = np.array(list(measured), float)
    y = np.array(list(measured.values()))
    slope, latency = np.polyfit(x, y, 1, w=1 / y)  # relative errors: small and large messages alike
    print("MPI all-reduce, 2 local ranks (Allgather + rank-order sum):")
    for size, t in measured.items():
        print(f"  {size / 1024:>8.0f} KB  {t * 1e3:8.3f} ms  {size / t / 1e9:6.2f} GB/s")
    print(f"  fit: latency {latency * 1e6:.1f} us, bandwidth {1 / slope / 1e9:.2f} GB/s")
    configs = {"1 process, 1 thread": (1, 1), "1 process, all cores": (1, None), "2 processes": (2, None)}
    runs = [{k: _mpi("lenet", args.steps, n, t) for k, (n, t) in configs.items()} for _ in range(3)]  # alternating
    lenet = {k: min((r[k] for r in runs), key=lambda r: r["step_s"]) for k in configs}
    one = lenet["1 process, 1 thread"]
    print(
        f"LeNet-5, global batch 64 (os.sched_getaffinity: {len(os.sched_getaffinity(0))} cores), ms/step: "
        + ", ".join(f"{k} {v['step_s'] * 1e3:.1f}" for k, v in lenet.items())
        + f"; 2 processes vs 1 process, 1 thread: {one['step_s'] / lenet['2 processes']['step_s']:.2f}x"
    )
    mlp = _mpi("mlp", max(3, args.steps // 4), 1, 1)
    models = {"LeNet-5": one, "MLP 25M": mlp}
    print("Scaling model (weak scaling, batch 64 per host, ring all-reduce, no overlap): step ms / efficiency")
    print(f"  {'model':<9}{'params':>11}  {'link':<9}" + "".join(f"{p:>14}" for p in HOSTS))
    table = {}
    for name, m in models.items():
        for link, (lat, bw) in LINKS.items():
            cells = []
            for p in HOSTS:
                step = m["step_s"] + ring(p, 4 * m["params"], lat, bw)
                cells.append((step, m["step_s"] / step))
            table[f"{name} {link}"] = cells
            print(f"  {name:<9}{m['params']:>11,}  {link:<9}" + "".join(f"{s * 1e3:>8.1f} {e:>4.0%}" for s, e in cells))
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "allreduce": measured,
                    "latency_s": latency,
                    "bandwidth_Bps": 1 / slope,
                    "lenet": lenet,
                    "mlp": mlp,
                    "model": table,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
