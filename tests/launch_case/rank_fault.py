"""A Fluid trainer of `pe launch --trainers 2` whose rank 1 fails at its third step while rank 0 goes
on (its next collective would wait for ever): ``raise``, ``kill`` (SIGKILL itself) or ``exit``
(os._exit(3)), as argv[1] says. Run by tests/cli/test_rank_failures.py."""

import os
import sys

import numpy as np
import paddle.fluid as fluid

mode = sys.argv[1]
trainer_id = int(os.environ["PADDLE_TRAINER_ID"])
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [4])
    loss = fluid.layers.mean(fluid.layers.fc(x, 1))
    fluid.optimizer.SGD(0.1).minimize(loss)
config = fluid.DistributeTranspilerConfig()
config.mode = "nccl2"
t = fluid.DistributeTranspiler(config=config)
t.transpile(
    trainer_id,
    program=main,
    startup_program=startup,
    trainers=os.environ["PADDLE_TRAINER_ENDPOINTS"],
    current_endpoint=os.environ["PADDLE_CURRENT_ENDPOINT"],
)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
os.environ["CPU_NUM"] = "1"
program = fluid.CompiledProgram(t.get_trainer_program()).with_data_parallel(loss_name=loss.name)
print(f"trainer {trainer_id} pid {os.getpid()}", flush=True)
for step in range(100000):
    if trainer_id == 1 and step == 2:
        if mode == "raise":
            raise RuntimeError("rank 1 broke at step 2")
        if mode == "kill":
            os.kill(os.getpid(), 9)
        if mode == "exit":
            os._exit(3)
    exe.run(program, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[loss.name])
