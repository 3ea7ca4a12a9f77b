"""Row-sparse embedding gradients on the CUDA kernels (the simulator in CI): sparse training on a GPU
ends with the CPU's parameters, for SGD, Adagrad and lazy Adam (the sparse row kernels) and Momentum
(densified, as Fluid's sparse momentum updates every row)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from tests.cuda.test_cuda_parallel import _need_two_gpus
from tests.training.test_sparse_embedding import batches, build, train

OPTIMIZERS = {
    "sgd": lambda: fluid.optimizer.SGD(0.5),
    "momentum": lambda: fluid.optimizer.Momentum(0.1, momentum=0.9),
    "adagrad": lambda: fluid.optimizer.Adagrad(0.05),
    "lazy_adam": lambda: fluid.optimizer.Adam(0.05, lazy_mode=True),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_sparse_training_on_cuda_matches_cpu(name):
    data = batches(3, seqs=4)
    cpu, cpu_losses = train(True, OPTIMIZERS[name], data)
    gpu, gpu_losses = train(True, OPTIMIZERS[name], data, place=fluid.CUDAPlace(0))
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-5)
    for k in cpu:
        np.testing.assert_allclose(gpu[k], cpu[k], rtol=1e-4, atol=3e-5, err_msg=k)


@pytest.mark.parametrize("name", ["sgd", "lazy_adam"])
def test_two_gpus_gather_sparse_gradients_like_one_cpu(monkeypatch, name):
    """The all-reduce of a SelectedRows on GPUs concatenates rows and values on the first device and
    copies them to the other: 2 (simulated) GPUs train to the parameters of 1 CPU device."""
    _need_two_gpus()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    data = batches(2, seqs=4)
    cpu, cpu_losses = train(True, OPTIMIZERS[name], data)
    main, startup, loss = build(True, OPTIMIZERS[name])
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.ParallelExecutor(use_cuda=True, loss_name=loss.name, main_program=main, scope=scope)
    assert pe.device_count == 2
    losses = [float(np.mean(pe.run(fetch_list=[loss], feed=feed)[0])) for feed in data]
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-5)
    for k in cpu:
        np.testing.assert_allclose(np.array(scope.find_var(k).get_tensor()), cpu[k], rtol=1e-4, atol=3e-5, err_msg=k)
