"""Row-sparse embedding gradients on the CUDA kernels (the simulator in CI): sparse training on a GPU
ends with the CPU's parameters, for SGD, Adagrad and lazy Adam (the sparse row kernels) and Momentum
(densified, as Fluid's sparse momentum updates every row)."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from tests.test_sparse_embedding import batches, train

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
