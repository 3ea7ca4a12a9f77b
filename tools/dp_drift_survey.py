"""How often 4 CPU devices end a short training run apart from 1 device: Paddle's
test_parallel_executor_mnist net (784 -> fc 100 relu -> fc 100 relu -> fc 10 softmax, Adam, batch 32,
7 steps, tests/compat/_parallel_executor_base.py) on one random batch per seed, the last loss of the
mean of 4 devices against the single-device Executor's. Runs on pe and on Fluid 1.8.5 alike:

    .venv/bin/pe fluid tools/dp_drift_survey.py 0 300                 # pe, this host's code path
    OPENBLAS_CORETYPE=Haswell NUMBA_CPU_NAME=haswell .venv/bin/pe fluid tools/dp_drift_survey.py 0 300
    /tmp/fluid185/bin/python tools/dp_drift_survey.py 0 300           # Fluid 1.8.5 (Python 3.8)

It prints the seeds whose last losses differ by more than 1e-6 (docs/PARALLEL.md, "One device
against N: float32 rounding")."""

import os
import sys

os.environ["CPU_NUM"] = "4"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "compat"))

import numpy as np  # noqa: E402

import paddle.fluid as fluid  # noqa: E402
from paddle.fluid import compiler  # noqa: E402
from _parallel_executor_base import set_strategy, simple_fc_net  # noqa: E402


def batch(seed):
    np.random.seed(seed)
    img = np.random.random(size=[32, 784]).astype(np.float32)
    label = np.array([np.random.randint(0, 9) for _ in range(32)]).reshape((-1, 1)).astype("int64")
    return img, label


def last_loss(parallel, img, label, steps=7):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        loss = simple_fc_net()
        loss.persistable = False
        fluid.optimizer.Adam().minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    build, execution = set_strategy(True, False, False, False, False, False, False, False, False, False)
    program = (
        compiler.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=build, exec_strategy=execution
        )
        if parallel
        else main
    )
    for _ in range(steps):
        (value,) = exe.run(program, feed={"image": img, "label": label}, fetch_list=[loss.name])
    return float(np.mean(value))


def main(first, last):
    apart = []
    for seed in range(first, last):
        img, label = batch(seed)
        gap = abs(last_loss(True, img, label) - last_loss(False, img, label))
        if gap > 1e-6:
            apart.append((seed, gap))
    print(
        f"{len(apart)} of {last - first} seeds end more than 1e-6 apart: "
        + ", ".join(f"seed {s}: {g:.2g}" for s, g in apart)
    )


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
