"""Parameter-server mode with a large-vocabulary embedding: step time when the trainers send its
gradient densified against row-sparse (rows and values, Fluid's sparse send), side by side in one
run, on a quiet machine and again with one competing busy process:

    python benchmarks/pserver_sparse.py [--steps 12] [--rounds 2] [--quiet-only]

The model is benchmarks/sparse_embedding.py's (64 sequences of 20 ids from a vocabulary of 100,000 ->
embedding 64 -> sum pool -> fc 2 -> softmax cross-entropy; SGD), trained by `mpiexec -n 3`: one
server, two trainers of 32 sequences each, synchronous. "dense" builds the embedding with
is_sparse=False (a [100,000, 64] gradient crosses the link and the server's update touches every
row); "sparse" with is_sparse=True. Both runs receive the whole table back every step, as Fluid's
recv does. The two modes alternate, ``--rounds`` times each, so a change of the machine's load falls
on both alike; it prints each mode's median step time on trainer 0 after 3 warm-up steps, the
ratio, and whether the two trainings gave the same losses (they must: SGD's sparse update equals
the dense one).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEQS, LENGTH, WARMUP = 64, 20, 3


def worker(sparse, steps, out):
    """One rank: rank 0 serves, ranks 1 and 2 train on their halves of the global batches."""
    import pe_cli.fluid as fluid

    sys.path.insert(0, str(HERE))
    from sparse_embedding import build, feeds

    rank = int(os.environ["PMI_RANK"])
    main, startup, loss = build(sparse, "sgd")
    t = fluid.DistributeTranspiler()
    t.transpile(max(rank - 1, 0), program=main, startup_program=startup, pservers="127.0.0.1:6174", trainers=2)
    exe = fluid.Executor(fluid.CPUPlace())
    if rank == 0:
        server, server_startup = t.get_pserver_programs("127.0.0.1:6174")
        exe.run(server_startup)
        exe.run(server)
        return
    exe.run(startup)
    half = SEQS // 2
    times, losses = [], []
    for feed in feeds(WARMUP + steps, fluid.CPUPlace()):
        ids = np.array(feed["ids"]).reshape(SEQS, LENGTH)[(rank - 1) * half : rank * half].reshape(-1, 1)
        mine = {
            "ids": fluid.create_lod_tensor(ids, [[LENGTH] * half], fluid.CPUPlace()),
            "label": feed["label"][(rank - 1) * half : rank * half],
        }
        start = time.perf_counter()
        losses.append(float(exe.run(t.get_trainer_program(), feed=mine, fetch_list=[loss])[0]))
        times.append(time.perf_counter() - start)
    exe.close()
    if rank == 1:
        Path(out).write_text(json.dumps({"times": times[WARMUP:], "losses": losses}))


def run(sparse, steps):
    mpiexec = shutil.which("mpiexec", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "trainer0.json")
        env = dict(
            os.environ,
            OMP_NUM_THREADS="1",
            PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]),
        )
        done = subprocess.run(
            [mpiexec, "-n", "3", sys.executable, __file__, "--worker", str(int(sparse)), str(steps), out],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        if done.returncode:
            sys.exit(f"mpiexec failed:\n{done.stderr[-3000:]}")
        return json.loads(Path(out).read_text())


def phase(args):
    times, losses = {"dense": [], "sparse": []}, {}
    for _ in range(args.rounds):
        for name in ("dense", "sparse"):
            result = run(name == "sparse", args.steps)
            times[name] += result["times"]
            losses[name] = result["losses"]
    medians = {n: statistics.median(t) for n, t in times.items()}
    same = bool(np.allclose(losses["dense"], losses["sparse"], rtol=1e-5))
    print(
        f"  dense {medians['dense'] * 1e3:8.1f} ms   sparse {medians['sparse'] * 1e3:8.1f} ms   "
        f"dense/sparse {medians['dense'] / medians['sparse']:5.2f}   same losses={same}",
        flush=True,
    )


def main():
    if sys.argv[1:2] == ["--worker"]:
        worker(bool(int(sys.argv[2])), int(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--quiet-only", action="store_true", help="skip the phase with a competing busy process")
    args = parser.parse_args()
    print(
        f"1 server x 2 trainers, vocabulary 100,000, embedding 64, {SEQS} sequences x {LENGTH} ids a step; "
        f"median step time of trainer 0 after {WARMUP} warm-up steps ({args.steps} steps x {args.rounds} rounds)"
    )
    print("quiet machine:")
    phase(args)
    if args.quiet_only:
        return
    competitor = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        print("with one competing busy process:")
        phase(args)
    finally:
        competitor.kill()


if __name__ == "__main__":
    main()
