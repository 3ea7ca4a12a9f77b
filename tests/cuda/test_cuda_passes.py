"""The graph passes on GPUs (simulated in CI): memory_optimize, enable_inplace,
fuse_all_optimizer_ops and enable_backward_optimizer_op_deps leave training bitwise unchanged on
one and two GPUs, and fluid.memory_optimize on the sequential Executor on one."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

from test_cuda_parallel import _build, _feeds, _need_two_gpus


def _train(options, devices):
    main, startup, loss = _build()
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CUDAPlace(0))
    exe.run(startup, scope=scope)
    if devices == 0:
        program = main
        if options:
            fluid.memory_optimize(main)
    else:
        bs = fluid.BuildStrategy()
        for key in options:
            setattr(bs, key, True)
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=bs, places=[fluid.CUDAPlace(i) for i in range(devices)]
        )
    losses = [exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0] for feed in _feeds()]
    return losses, {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}


@pytest.mark.parametrize(
    "devices,options",
    [
        (0, ("memory_optimize",)),
        (2, ("memory_optimize",)),
        (2, ("memory_optimize", "enable_inplace")),
        (1, ("fuse_all_optimizer_ops",)),
        (2, ("fuse_all_optimizer_ops",)),
        (2, ("enable_backward_optimizer_op_deps",)),
    ],
)
def test_passes_leave_gpu_training_unchanged(monkeypatch, devices, options):
    if devices:
        _need_two_gpus()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1")
    losses, params = _train((), devices)
    losses_opt, params_opt = _train(options, devices)
    for a, b in zip(losses, losses_opt):
        np.testing.assert_array_equal(a, b)
    for name, value in params.items():
        np.testing.assert_array_equal(params_opt[name], value, err_msg=name)
