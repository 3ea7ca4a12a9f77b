"""A Fluid 1.x script as a cluster runs it: each role started on its own with Fluid's environment
(PADDLE_TRAINING_ROLE, PADDLE_PSERVER_ENDPOINTS, PADDLE_TRAINER_ENDPOINTS, PADDLE_TRAINER_ID, ...).
Without PADDLE_PSERVER_ENDPOINTS and with several trainers it runs in collective (nccl2) mode; with
neither, alone on the whole batches. A trainer trains an MLP for 10 steps on its share of 12-row
batches; trainer 0 (or the process alone) writes the parameters to OUT.npz.

    pe fluid fluid_roles.py OUT.npz [FAULT]

FAULT: ``raise``, ``exit`` (os._exit(3)) or ``kill`` (SIGKILL itself) in trainer 1 at step 2 while the
others train for ever; ``forever``: every trainer trains for ever (the test kills a role itself).
Every process prints ``pid N`` first. Run by tests/cli/test_rendezvous*.py."""

import os
import sys

import numpy as np
import paddle.fluid as fluid

out, fault = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
role = os.environ.get("PADDLE_TRAINING_ROLE", "TRAINER")
pservers = os.environ.get("PADDLE_PSERVER_ENDPOINTS")
trainers = int(os.environ.get("PADDLE_TRAINERS_NUM", "1"))
trainer_id = int(os.environ.get("PADDLE_TRAINER_ID", "0"))
current = os.environ.get("PADDLE_CURRENT_ENDPOINT")
print(f"pid {os.getpid()}", flush=True)

main, startup = fluid.Program(), fluid.Program()
main.random_seed = startup.random_seed = 7
with fluid.program_guard(main, startup):
    x = fluid.layers.data("x", [6])
    y = fluid.layers.data("y", [1], dtype="int64")
    hidden = fluid.layers.fc(x, 8, act="tanh")
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(hidden, 3), y))
    fluid.optimizer.Momentum(0.1, momentum=0.9).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace())
if pservers:  # parameter-server mode (synchronous)
    t = fluid.DistributeTranspiler()
    t.transpile(trainer_id, program=main, startup_program=startup, pservers=pservers, trainers=trainers)
    if role == "PSERVER":
        server = t.get_pserver_program(current)
        exe.run(t.get_startup_program(current, server))
        exe.run(server)
        sys.exit(0)
    exe.run(startup)
    program = t.get_trainer_program()
elif trainers > 1:  # collective mode
    config = fluid.DistributeTranspilerConfig()
    config.mode = "nccl2"
    t = fluid.DistributeTranspiler(config=config)
    t.transpile(
        trainer_id,
        program=main,
        startup_program=startup,
        trainers=os.environ["PADDLE_TRAINER_ENDPOINTS"],
        current_endpoint=current,
    )
    exe.run(startup)
    os.environ["CPU_NUM"] = "1"
    program = fluid.CompiledProgram(t.get_trainer_program()).with_data_parallel(loss_name=loss.name)
else:
    exe.run(startup)
    program = main
rng = np.random.default_rng(0)
share = slice(trainer_id * 12 // trainers, (trainer_id + 1) * 12 // trainers)
for step in range(10**9 if fault else 10):
    xs = rng.normal(size=(12, 6)).astype("float32")
    ys = rng.integers(0, 3, size=(12, 1)).astype("int64")
    if fault in ("raise", "exit", "kill") and trainer_id == 1 and step == 2:
        if fault == "raise":
            raise RuntimeError("trainer 1 broke at step 2")
        if fault == "exit":
            os._exit(3)
        os.kill(os.getpid(), 9)
    exe.run(program, feed={"x": xs[share], "y": ys[share]}, fetch_list=[loss.name])
params = {
    p.name: np.array(fluid.global_scope().find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()
}
if pservers:
    exe.close()
if trainer_id == 0:
    np.savez(out, **params)
