"""One trainer of the multi-process tests (tests/transpiler/test_distributed.py), run by mpiexec or alone:

    python tests/dist_worker.py MODEL TRAINERS DEVICES OUT [fuse] [reduce] [momentum] [fail] [kill] [hang] [differ] [transpiler]

Trains MODEL (mlp or lenet) 10 steps on the same global batches; trainer r takes rows
[r*B/K, (r+1)*B/K) of each and runs them on DEVICES CPU devices. Each trainer writes OUT.<rank>.npz:
its per-step mean loss and the parameters. ``fail``: trainer 1 feeds a wrong shape at step 3;
``kill``: trainer 1 kills itself (SIGKILL) at step 3; ``hang``: trainer 1 sleeps at step 3.
``differ``: trainer 1's program differs (its last fc has 5 classes, not 4). ``transpiler``: the trainer program comes from DistributeTranspiler (nccl2 mode) and runs through
CompiledProgram.with_data_parallel."""

import os
import sys
import time

import numpy as np

model, trainers, devices, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
flags = set(sys.argv[5:])
os.environ["CPU_NUM"] = str(devices)
sys.path.insert(0, os.path.dirname(__file__))

import pe_cli.fluid as fluid  # noqa: E402
import parallel_nets  # noqa: E402
from parallel_nets import batch, build, params  # noqa: E402

rank = int(os.environ.get("PMI_RANK", "0"))
if "differ" in flags and rank == 1:  # trainer 1's program has 5 classes where trainer 0's has 4
    parallel_nets.mlp = lambda x, label, mlp=parallel_nets.mlp: mlp(x, label, classes=5)
main, startup, loss = build(
    model, optimizer="momentum" if "momentum" in flags else "sgd", seed=7 if rank == 0 else 100 + rank
)  # other ranks start elsewhere
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
strategy = fluid.BuildStrategy()
strategy.fuse_all_reduce_ops = "fuse" in flags
if "reduce" in flags:
    strategy.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
if "transpiler" in flags:
    config = fluid.DistributeTranspilerConfig()
    config.mode = "nccl2"
    t = fluid.DistributeTranspiler(config=config)
    endpoints = ",".join(f"127.0.0.1:{6170 + i}" for i in range(trainers))
    t.transpile(
        rank, program=main, startup_program=startup, trainers=endpoints, current_endpoint=f"127.0.0.1:{6170 + rank}"
    )
    program = fluid.CompiledProgram(t.get_trainer_program()).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy
    )
    run = lambda feed: exe.run(program, feed=feed, fetch_list=[loss.name])  # noqa: E731
else:
    pe = fluid.ParallelExecutor(
        False, loss_name=loss.name, main_program=main, build_strategy=strategy, num_trainers=trainers, trainer_id=rank
    )
    run = lambda feed: pe.run([loss.name], feed=feed)  # noqa: E731
losses = []
for step in range(10):
    full = batch(model, n=12, seed=step)
    share = 12 // trainers
    feed = {k: v[rank * share : (rank + 1) * share] for k, v in full.items()}
    if "fail" in flags and rank == 1 and step == 3:
        feed["x"] = feed["x"][:, :3]
    if "kill" in flags and rank == 1 and step == 3:
        os.kill(os.getpid(), 9)
    if "hang" in flags and rank == 1 and step == 3:
        time.sleep(600)  # a rank stuck outside the collectives: the stall inspector's case
    losses.append(float(np.mean(run(feed)[0])))
np.savez(f"{out}.{rank}.npz", losses=np.array(losses), **params(main, fluid.global_scope()))
