"""A Fluid-style distributed trainer as Fluid 1.x scripts are written: it reads the PADDLE_* environment
(what `paddlecloud`/`paddle.distributed.launch` set, and `pe launch` sets), transpiles in nccl2 mode
and trains an MLP on its share of each batch; it prints the trainer id and a checksum of the
parameters (every trainer must print the same). Run by tests/cli/test_launch.py through
`pe launch --trainers 2`."""

import os

import numpy as np
import paddle.fluid as fluid

trainer_id = int(os.environ["PADDLE_TRAINER_ID"])
trainers = os.environ["PADDLE_TRAINER_ENDPOINTS"]
current = os.environ["PADDLE_CURRENT_ENDPOINT"]
assert os.environ["PADDLE_TRAINING_ROLE"] == "TRAINER"
num = int(os.environ["PADDLE_TRAINERS_NUM"])

main, startup = fluid.Program(), fluid.Program()
main.random_seed = startup.random_seed = 3 + trainer_id  # trainer 0's parameters are broadcast
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [8])
    y = fluid.layers.data("y", [1], dtype="int64")
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 3), y))
    fluid.optimizer.SGD(0.5).minimize(loss)
config = fluid.DistributeTranspilerConfig()
config.mode = "nccl2"
t = fluid.DistributeTranspiler(config=config)
t.transpile(trainer_id, program=main, startup_program=startup, trainers=trainers, current_endpoint=current)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
os.environ["CPU_NUM"] = "1"
program = fluid.CompiledProgram(t.get_trainer_program()).with_data_parallel(loss_name=loss.name)
rng = np.random.default_rng(0)
for step in range(5):
    xs = rng.normal(size=(8, 8)).astype("float32")
    ys = rng.integers(0, 3, size=(8, 1)).astype("int64")
    share = slice(trainer_id * 8 // num, (trainer_id + 1) * 8 // num)
    exe.run(program, feed={"x": xs[share], "y": ys[share]}, fetch_list=[loss.name])
total = sum(
    float(np.abs(np.array(fluid.global_scope().find_var(p.name).get_tensor())).sum())
    for p in main.global_block().all_parameters()
)
print(f"trainer {trainer_id} of {num} at {current}: {total:.6f}")
