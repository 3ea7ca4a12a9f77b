"""A collective-fleet program in Fluid 1.8's style: an MLP trained with Momentum, each worker on its
share of every global batch; the role from PaddleCloudRoleMaker(is_collective=True) (pe launch sets
the environment). With --local, one process trains on the whole batches.

    pe fluid collective.py OUT_DIR [--local | --given ID ENDPOINTS]

--given: the role from UserDefinedCollectiveRoleMaker (this worker's index, every worker's ip:port
joined by commas), not from the environment.

Worker 0 (or the local run) saves the persistables with fleet.save_persistables (fluid.io's with
--local) and the inference model into OUT_DIR/infer."""

import os
import sys

import numpy as np
import paddle.fluid as fluid
from paddle.fluid.incubate.fleet.base import role_maker
from paddle.fluid.incubate.fleet.collective import DistributedStrategy, fleet

out_dir = sys.argv[1]
local = "--local" in sys.argv
given = sys.argv[sys.argv.index("--given") + 1 :] if "--given" in sys.argv else None

main, startup = fluid.Program(), fluid.Program()
main.random_seed = startup.random_seed = 3
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [6])
    y = fluid.layers.data("y", [1], dtype="int64")
    hidden = fluid.layers.fc(x, 12, act="tanh", name="h")
    predict = fluid.layers.fc(hidden, 3, act="softmax", name="out")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(predict, y))
    optimizer = fluid.optimizer.Momentum(0.1, momentum=0.9)
    if not local:
        fleet.init(
            role_maker.UserDefinedCollectiveRoleMaker(int(given[0]), given[1].split(","))
            if given
            else role_maker.PaddleCloudRoleMaker(is_collective=True)
        )
        optimizer = fleet.distributed_optimizer(optimizer, DistributedStrategy())
    optimizer.minimize(loss)

exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
program = main if local else fleet.main_program
rows = slice(None) if local else slice(fleet.worker_index() * 4, fleet.worker_index() * 4 + 4)
rng = np.random.default_rng(1)
for step in range(10):
    xs = rng.normal(size=(8, 6)).astype("float32")
    ys = rng.integers(0, 3, size=(8, 1)).astype("int64")
    (value,) = exe.run(program, feed={"x": xs[rows], "y": ys[rows]}, fetch_list=[loss])
    print(f"step {step}: loss {float(np.mean(value)):.6f}")
if local:
    fluid.io.save_persistables(exe, out_dir, main)
    fluid.io.save_inference_model(os.path.join(out_dir, "infer"), ["x"], [predict], exe, main)
elif fleet.is_first_worker():
    fleet.save_persistables(exe, out_dir)
    fleet.save_inference_model(exe, os.path.join(out_dir, "infer"), ["x"], [predict])
