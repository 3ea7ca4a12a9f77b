# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_dry_run.py @ 0bdbeb2703be3acef2bba0922de39459daee01a0
# Re-written for pe (same API calls, same facts), run with `pe fluid`: with ExecutionStrategy._dry_run
# the data-parallel graph over CPU_NUM=4 devices is built and scheduled without feeds, 10 x 10 times,
# with and without use_experimental_executor; the GPU case runs where CUDA is.
import os

import paddle.fluid as fluid
from paddle.fluid import compiler

os.environ["CPU_NUM"] = str(4)


def network_func():
    img = fluid.layers.data(name="img", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    hidden = img
    for _ in range(10):
        hidden = fluid.layers.fc(input=img, size=200, act="tanh")
    prediction = fluid.layers.fc(input=hidden, size=10, act="softmax")
    loss = fluid.layers.cross_entropy(input=prediction, label=label)
    avg_loss = fluid.layers.mean(loss)
    fluid.optimizer.Adam().minimize(avg_loss)
    return avg_loss


def main(network_func, iter=10, iter_per_pe=10, use_gpu=True, use_experimental_executor=False):
    if use_gpu and not fluid.core.is_compiled_with_cuda():
        return
    main_prog, startup_prog, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.program_guard(main_prog, startup_prog), fluid.scope_guard(scope):
        loss = network_func()
        exe = fluid.Executor(fluid.CUDAPlace(0) if use_gpu else fluid.CPUPlace())
        exe.run(startup_prog)
        exe_strategy = fluid.ExecutionStrategy()
        exe_strategy._dry_run = True
        exe_strategy.use_experimental_executor = use_experimental_executor
        train_cp = compiler.CompiledProgram(main_prog).with_data_parallel(
            loss_name=loss.name, exec_strategy=exe_strategy
        )
        for _ in range(iter):
            for _ in range(iter_per_pe):
                exe.run(train_cp)


for use_gpu in (False, True):
    for use_experimental_executor in (False, True):
        main(network_func=network_func, use_gpu=use_gpu, use_experimental_executor=use_experimental_executor)
print("ok")
