"""A Fluid-style parameter-server script as Fluid 1.x distributed scripts are written: the role comes
from PADDLE_TRAINING_ROLE; a server runs its program, a trainer trains an MLP on its share of each
batch and prints its id and a checksum of the parameters (every trainer must print the same). Run by
tests/cli/test_launch.py through `pe launch --trainers 2 --pservers 2`."""

import os

import numpy as np
import paddle.fluid as fluid

role = os.environ["PADDLE_TRAINING_ROLE"]
pservers = os.environ["PADDLE_PSERVER_ENDPOINTS"]
trainers = int(os.environ["PADDLE_TRAINERS_NUM"])
trainer_id = int(os.environ["PADDLE_TRAINER_ID"])
current = os.environ["PADDLE_CURRENT_ENDPOINT"]

main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [8])
    y = fluid.layers.data("y", [1], dtype="int64")
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 3), y))
    fluid.optimizer.Momentum(0.3, momentum=0.9).minimize(loss)
config = fluid.DistributeTranspilerConfig()
config.min_block_size = 8
t = fluid.DistributeTranspiler(config=config)
t.transpile(trainer_id, program=main, startup_program=startup, pservers=pservers, trainers=trainers)
exe = fluid.Executor(fluid.CPUPlace())
if role == "PSERVER":
    server = t.get_pserver_program(current)
    exe.run(t.get_startup_program(current, server))
    exe.run(server)
    print(f"server {current} done")
else:
    exe.run(startup)
    rng = np.random.default_rng(0)
    for step in range(5):
        xs = rng.normal(size=(8, 8)).astype("float32")
        ys = rng.integers(0, 3, size=(8, 1)).astype("int64")
        share = slice(trainer_id * 8 // trainers, (trainer_id + 1) * 8 // trainers)
        exe.run(t.get_trainer_program(), feed={"x": xs[share], "y": ys[share]}, fetch_list=[loss.name])
    total = sum(
        float(np.abs(np.array(fluid.global_scope().find_var(p.name).get_tensor())).sum())
        for p in main.global_block().all_parameters()
    )
    exe.close()
    print(f"trainer {trainer_id} of {trainers} at {current}: {total:.6f}")
