# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_test_while_train.py @ 0e2a4b65696b995f48c9846c53816374f6a5af7f
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices. Facts:
# simple_fc_net (simple_nets.py, in _parallel_executor_base.py) trained with SGD through
# CompiledProgram.with_data_parallel, and its clone(for_test=True) compiled with share_vars_from the
# training program, give, five times over, a test loss on the batch equal (rtol 1e-5, atol 0.01) to the
# training loss of the step after it, under AllReduce and Reduce; one BuildStrategy serves both
# programs. The CUDA cases run where CUDA is.
import math
import os
import sys

import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid import compiler
from _parallel_executor_base import simple_fc_net


def check_network_convergence(use_cuda, build_strategy=None):
    os.environ["CPU_NUM"] = str(4)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = simple_fc_net()
        test_program = main.clone(for_test=True)
        fluid.optimizer.SGD(learning_rate=0.001).minimize(loss)
        batch_size = 32
        image = np.random.normal(size=(batch_size, 784)).astype("float32")
        label = np.random.randint(0, 10, (batch_size, 1), dtype="int64")
        place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
        exe = fluid.Executor(place)
        exe.run(startup)
        feed_dict = {"image": image, "label": label}
        train_cp = compiler.CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=build_strategy)
        test_cp = compiler.CompiledProgram(test_program).with_data_parallel(
            loss_name=loss.name, build_strategy=build_strategy, share_vars_from=train_cp
        )
        for _ in range(5):
            exe.run(train_cp, feed=feed_dict, fetch_list=[loss.name])
            (test_loss,) = exe.run(test_cp, feed=feed_dict, fetch_list=[loss.name])
            (train_loss,) = exe.run(train_cp, feed=feed_dict, fetch_list=[loss.name])
            if math.isnan(float(np.array(test_loss).mean())):
                sys.exit("got NaN loss, testing failed.")
            if math.isnan(float(np.array(train_loss).mean())):
                sys.exit("got NaN loss, training failed.")
            np.testing.assert_allclose(train_loss, test_loss, rtol=1e-05, atol=0.01)


def strategy(reduce_strategy):
    build_strategy = fluid.BuildStrategy()
    build_strategy.reduce_strategy = reduce_strategy
    return build_strategy


# test_parallel_testing
build_strategy = strategy(fluid.BuildStrategy.ReduceStrategy.AllReduce)
if core.is_compiled_with_cuda():
    check_network_convergence(use_cuda=True, build_strategy=build_strategy)
check_network_convergence(use_cuda=False, build_strategy=build_strategy)
# test_parallel_testing_with_new_strategy_gpu
if core.is_compiled_with_cuda():
    check_network_convergence(use_cuda=True, build_strategy=strategy(fluid.BuildStrategy.ReduceStrategy.Reduce))
# test_parallel_testing_with_new_strategy_cpu
check_network_convergence(use_cuda=False, build_strategy=strategy(fluid.BuildStrategy.ReduceStrategy.Reduce))
print("ok")
