"""Data parallelism on GPUs (two simulated devices in CI): ParallelExecutor(use_cuda=True) trains
like the CPU engine on as many devices, for both reduce strategies; every GPU keeps its own
parameter copy on the device; fetches come back concatenated."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.kernels.cuda import runtime

STEPS = 3


def _build(seed=7):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[8])
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        hidden = fluid.layers.fc(x, 8, act="relu")
        logits = fluid.layers.fc(hidden, 4)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.SGD(learning_rate=0.2).minimize(loss)
    return main, startup, loss


def _feeds():
    rng = np.random.default_rng(1)
    return [
        {"x": rng.standard_normal((6, 8)).astype("float32"), "label": rng.integers(0, 4, (6, 1)).astype("int64")}
        for _ in range(STEPS)
    ]


def _train(use_cuda, reduce):
    main, startup, loss = _build()
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    bs = fluid.BuildStrategy()
    bs.reduce_strategy = getattr(fluid.BuildStrategy.ReduceStrategy, reduce)
    pe = fluid.ParallelExecutor(
        use_cuda=use_cuda, loss_name=loss.name, main_program=main, build_strategy=bs, scope=scope
    )
    assert pe.device_count == 2
    losses = [pe.run(fetch_list=[loss], feed=feed)[0] for feed in _feeds()]
    names = [p.name for p in main.all_parameters()]
    params = {n: np.array(scope.find_var(n).get_tensor()) for n in names}
    return losses, params, pe


def _need_two_gpus():
    """The simulator has as many devices as asked; a real machine needs two GPUs."""
    if not runtime.simulated() and runtime.device_count() < 2:
        pytest.skip(f"needs two GPUs; this machine has {runtime.device_count()}")


@pytest.mark.parametrize("reduce", ["AllReduce", "Reduce"])
def test_two_gpus_train_like_two_cpu_devices(monkeypatch, reduce):
    _need_two_gpus()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    monkeypatch.setenv("CPU_NUM", "2")
    cpu_losses, cpu_params, _ = _train(False, reduce)
    gpu_losses, gpu_params, pe = _train(True, reduce)
    for got, want in zip(gpu_losses, cpu_losses):
        assert got.shape == (2,)  # one loss per device, concatenated
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for name, want in cpu_params.items():
        np.testing.assert_allclose(gpu_params[name], want, rtol=1e-5, atol=1e-6, err_msg=name)
        copy = pe._engine.param_scopes[1].get_array(name)
        assert runtime.is_device_array(copy)
        np.testing.assert_allclose(runtime.to_host(copy), want, rtol=1e-5, atol=1e-6)
