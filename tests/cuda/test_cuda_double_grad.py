"""Gradients of gradients on the CUDA kernels (the simulator in CI): conv2d's, instance_norm's and batch_norm's double
gradients (tests/training/test_double_grad.py checks them on the CPU against finite differences) equal
the CPU's for the same values."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from tests.training.test_double_grad import CASES, build_batch_norm, build_instance_norm, second_order

BUILDS = {
    "conv2d": CASES["conv2d"],
    "instance_norm": ([("x", [2, 2, 3])], build_instance_norm),
    "batch_norm": ([("x", [2, 2, 3])], build_batch_norm()),
}


@pytest.mark.parametrize("case", sorted(BUILDS))
def test_double_gradients_on_cuda_match_the_cpu(case):
    shapes, build = BUILDS[case]
    cpu, _, values = second_order(build, shapes, fluid.CPUPlace())
    gpu, _, _ = second_order(build, shapes, fluid.CUDAPlace(0), given=values)
    for (name, want), (_, got) in zip(cpu, gpu):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9, err_msg=f"d/d{name}")
