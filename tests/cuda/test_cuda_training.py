"""Training on the CUDA kernels (the simulator in CI): the same losses and parameters as the CPU,
parameters staying on the device between runs, no device allocation once the loop is warm, and a
clear one-line error where CUDA is missing."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import OpError
from pe_cli.executor import Executor, Scope
from pe_cli.framework import Program, program_guard
from pe_cli.kernels.cuda import runtime
from pe_cli.base.places import CPUPlace, CUDAPlace


def _mlp(optimizer, with_test=False):
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 5
    with program_guard(main, startup):
        x = fluid.layers.data("x", [12])
        y = fluid.layers.data("y", [1], dtype="int64")
        h = fluid.layers.fc(x, 16, act="relu")
        logits = fluid.layers.fc(h, 4)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        test = main.clone(for_test=True)
        optimizer.minimize(loss)
    return (main, startup, loss, test) if with_test else (main, startup, loss)


def _batches(n, batch=8):
    """n steps over two alternating batches (so the loss can be seen to fall)."""
    rng = np.random.default_rng(0)
    two = [
        {"x": rng.normal(size=(batch, 12)).astype("float32"), "y": rng.integers(0, 4, size=(batch, 1)).astype("int64")}
        for _ in range(2)
    ]
    return [two[i % 2] for i in range(n)]


def _train(place, optimizer, steps=4):
    main, startup, loss = _mlp(optimizer)
    scope, exe = Scope(), Executor(place)
    exe.run(startup, scope=scope)
    losses = [float(exe.run(main, feed=b, fetch_list=[loss], scope=scope)[0][0]) for b in _batches(steps)]
    params = [(p.name, np.array(scope.find_var(p.name).get_tensor())) for p in main.global_block().all_parameters()]
    return losses, params, scope


@pytest.mark.parametrize(
    "make_optimizer", [lambda: fluid.optimizer.SGD(0.5), lambda: fluid.optimizer.Adam(0.05)], ids=["sgd", "adam"]
)
def test_mlp_trains_like_the_cpu(make_optimizer):
    cpu_losses, cpu_params, _ = _train(CPUPlace(), make_optimizer())
    gpu_losses, gpu_params, scope = _train(CUDAPlace(0), make_optimizer())
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4)
    assert gpu_losses[-2] < gpu_losses[0] and gpu_losses[-1] < gpu_losses[1]
    assert len(gpu_params) == len(cpu_params) == 4
    for (name, got), (_, want) in zip(gpu_params, cpu_params):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=name)
        assert runtime.is_device_array(scope.get_array(name)), f"{name} left the device"


def test_warm_training_loop_allocates_nothing():
    """The pool grows while the loop warms up (on a real GPU, ops running at once on the executor's
    threads may hold a few more buffers in one step than in another), then stops growing."""
    main, startup, loss = _mlp(fluid.optimizer.SGD(0.1))
    scope, exe = Scope(), Executor(CUDAPlace(0))
    exe.run(startup, scope=scope)
    pool = runtime.device(0).pool
    allocations = []
    for b in _batches(12):
        exe.run(main, feed=b, fetch_list=[loss], scope=scope)
        allocations.append(pool.allocations)
    assert allocations[-6:] == [allocations[-6]] * 6, pool.stats()


def test_scope_values_read_back_on_the_host():
    _, params, scope = _train(CUDAPlace(0), fluid.optimizer.SGD(0.1), steps=1)
    name, value = params[0]
    tensor = scope.find_var(name).get_tensor()
    assert isinstance(np.array(tensor), np.ndarray)
    assert tensor.shape() == list(value.shape)


def test_failing_op_names_itself_and_where_it_was_built():
    main = Program()
    with program_guard(main, Program()):
        x = fluid.layers.data("x", [3], dtype="float32", append_batch_size=False)
        idx = fluid.layers.data("idx", [2], dtype="int64", append_batch_size=False)
        block = main.global_block()
        out = block.create_var(name="out", dtype="float32")
        block.append_op("gather", {"X": [x], "Index": [idx]}, {"Out": [out]})
    with pytest.raises(
        OpError, match="op 'gather' built at .*: gather: index 7 is out of range for X with 3 rows"
    ) as err:
        Executor(CUDAPlace(0)).run(
            main, feed={"x": np.ones(3, "float32"), "idx": np.array([0, 7])}, fetch_list=["out"], scope=Scope()
        )
    message = str(err.value)
    assert "'gather'" in message and "CUDAPlace(0)" in message and "test_cuda_training.py" in message
    assert "out of range" in message


def test_cuda_place_without_cuda_says_so_in_one_line():
    script = textwrap.dedent("""
        from pe_cli.base.errors import PeError
        from pe_cli.executor import Executor
        from pe_cli.kernels import is_compiled_with_cuda
        from pe_cli.base.places import CUDAPlace
        if is_compiled_with_cuda():
            print("HAS-GPU")
            raise SystemExit(0)
        try:
            Executor(CUDAPlace(0))
        except PeError as e:
            print(e)
    """)
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0", PE_REAL_GPU="1")
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode == 0 and proc.stdout.strip() == "HAS-GPU":
        pytest.skip("this machine has a GPU")
    assert proc.returncode == 0, proc.stderr
    line = proc.stdout.strip()
    assert "\n" not in line
    assert line.startswith("CUDA is not available here (") and "use place: cpu" in line, line


def test_checkpoint_of_a_gpu_scope_round_trips(tmp_path):
    main, startup, loss = _mlp(fluid.optimizer.SGD(0.1))
    scope, exe = Scope(), Executor(CUDAPlace(0))
    exe.run(startup, scope=scope)
    exe.run(main, feed=_batches(1)[0], fetch_list=[loss], scope=scope)
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path), main)
    restored = Scope()
    with fluid.scope_guard(restored):
        fluid.io.load_persistables(Executor(CPUPlace()), str(tmp_path), main)
    for p in main.global_block().all_parameters():
        np.testing.assert_array_equal(
            np.array(restored.find_var(p.name).get_tensor()), np.array(scope.find_var(p.name).get_tensor())
        )


def test_cpu_executor_reads_a_scope_trained_on_the_gpu():
    main, startup, loss, test = _mlp(fluid.optimizer.SGD(0.1), with_test=True)
    scope, gpu = Scope(), Executor(CUDAPlace(0))
    gpu.run(startup, scope=scope)
    feed = _batches(1)[0]
    gpu.run(main, feed=feed, fetch_list=[loss], scope=scope)
    on_gpu = gpu.run(test, feed=feed, fetch_list=[loss.name], scope=scope)[0]
    on_cpu = Executor(CPUPlace()).run(test, feed=feed, fetch_list=[loss.name], scope=scope)[0]
    np.testing.assert_allclose(on_cpu, on_gpu, rtol=1e-5)
