"""``fluid.install_check.run_check()`` (Fluid 1.8): trains a small linear model one step on one
device, then on every CPU device (or GPU) with data parallelism, and says that both work."""

import numpy as np

from .. import layers
from ..compiler import CompiledProgram
from ..executor import Executor, Scope, scope_guard
from ..framework import Program, program_guard
from ..kernels import cuda_places, is_compiled_with_cuda
from ..training.optimizer import SGD
from ..base.places import CPUPlace, CUDAPlace, cpu_places
from . import unique_name


def _step(program, startup, loss, place, parallel):
    exe, scope = Executor(place), Scope()
    with scope_guard(scope):
        exe.run(startup)
        target = CompiledProgram(program).with_data_parallel(loss_name=loss.name) if parallel else program
        x = np.random.default_rng(0).normal(size=(4 * max(1, parallel), 2)).astype("float32")
        (value,) = exe.run(target, feed={"inp": x}, fetch_list=[loss])
    if not np.all(np.isfinite(value)):
        raise RuntimeError(f"install_check: the check model's loss is {value}")


def run_check():
    print("Running Verify Fluid Program ... ")
    cuda = is_compiled_with_cuda()
    place = CUDAPlace(0) if cuda else CPUPlace()
    devices = len(cuda_places()) if cuda else len(cpu_places())
    program, startup = Program(), Program()
    with program_guard(program, startup), unique_name.guard():
        inp = layers.data("inp", [2])
        loss = layers.mean(layers.fc(inp, 3))
        SGD(0.01).minimize(loss)
    _step(program, startup, loss, place, 0)
    print("Your Paddle Fluid works well on SINGLE GPU or CPU.")
    _step(program, startup, loss, place, devices)
    print("Your Paddle Fluid works well on MUTIPLE GPU or CPU.")
    print("Your Paddle Fluid is installed successfully! Let's start deep Learning with Paddle Fluid now")
