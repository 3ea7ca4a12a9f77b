# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_fuse_elewise_add_act_pass.py @ 029e3ce2965d95fc654481f0dda8c3ce961238ae
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices, in its
# Fluid 1.x form (use_cuda for DeviceType; the second case's 2.x calls as fluid.data, layers.relu,
# layers.elementwise_add(axis=1), Program.random_seed). Facts: simple_fc_net and fc_with_batchnorm
# (simple_nets.py, in _parallel_executor_base.py) trained with SGD(1e-6, L2Decay) through
# with_data_parallel give the same first and last losses within 1e-6 with and without
# BuildStrategy.fuse_elewise_add_act_ops (memory_optimize and enable_inplace off, as the test sets);
# and a plain CompiledProgram of relu(X * 5) added to Y (the fused op's in-place gradient) gives the
# same loss with the pass on and off. CUDA branches run where CUDA is.
import os

import numpy

import paddle.fluid as fluid
from paddle.fluid import core
from _parallel_executor_base import (
    assert_almost_equal,
    check_network_convergence,
    fc_with_batchnorm,
    init_data,
    simple_fc_net,
)

os.environ["CPU_NUM"] = str(4)


def compare_fuse_elewise_add_act_ops(model, use_cuda):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    img, label = init_data()

    def _optimizer(learning_rate=1e-6):
        return fluid.optimizer.SGD(learning_rate=learning_rate, regularization=fluid.regularizer.L2Decay(1e-6))

    losses = [
        check_network_convergence(
            model,
            feed_dict={"image": img, "label": label},
            use_cuda=use_cuda,
            fuse_elewise_add_act_ops=fuse,
            use_ir_memory_optimize=False,
            enable_inplace=False,
            optimizer=_optimizer,
        )
        for fuse in (False, True)
    ]
    (not_fuse_first, not_fuse_last), (fuse_first, fuse_last) = losses
    for a, b in zip(not_fuse_first, fuse_first):
        assert_almost_equal(a, b, 1e-6, "first loss, unfused vs fused: ")
    for a, b in zip(not_fuse_last, fuse_last):
        assert_almost_equal(a, b, 1e-6, "last loss, unfused vs fused: ")


def build_program(main_program, startup_program):
    with fluid.program_guard(main_program, startup_program):
        X = fluid.data(name="X", shape=[3, 3], dtype="float32")
        Y = fluid.data(name="Y", shape=[3, 3], dtype="float32")
        Out1 = X * 5
        Out2 = fluid.layers.relu(Out1)
        prediction = fluid.layers.elementwise_add(Y, Out2, axis=1)
        loss = fluid.layers.mean(prediction)
        fluid.optimizer.SGD(learning_rate=0.001).minimize(loss)
    return X, Y, loss


def check_inplace_grad(place):
    numpy.random.seed(1)
    main_program, startup_program = fluid.Program(), fluid.Program()
    main_program.random_seed = startup_program.random_seed = 1
    X, Y, loss = build_program(main_program, startup_program)
    exe = fluid.Executor(place)
    x = numpy.random.random(size=(3, 3)).astype("float32")
    y = numpy.random.random(size=(3, 3)).astype("float32")
    results = []
    for fuse in (True, False):
        build_strategy = fluid.BuildStrategy()
        build_strategy.fuse_elewise_add_act_ops = fuse
        compiled = fluid.CompiledProgram(main_program, build_strategy=build_strategy)
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup_program)
            results.append(exe.run(compiled, feed={"X": x, "Y": y}, fetch_list=[loss.name]))
    loss_data_fused, loss_data = results
    assert loss_data_fused == loss_data, (loss_data_fused, loss_data)


# TestMNIST
compare_fuse_elewise_add_act_ops(simple_fc_net, True)
compare_fuse_elewise_add_act_ops(simple_fc_net, False)
compare_fuse_elewise_add_act_ops(fc_with_batchnorm, True)
compare_fuse_elewise_add_act_ops(fc_with_batchnorm, False)
# TestFuseActElewiseAddInplaceGradPass
check_inplace_grad(fluid.CPUPlace())
if fluid.core.is_compiled_with_cuda():
    check_inplace_grad(fluid.CUDAPlace(0))
print("ok")
