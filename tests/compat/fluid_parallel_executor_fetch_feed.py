# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_fetch_feed.py @ 0b0b17ba500ad2e3fd81751933e00192daabb4ff
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices, in its
# Fluid 1.6-1.8 form: the LeNet with batch norm trains (Momentum, L2Decay) through
# CompiledProgram.with_data_parallel (enable_inplace and memory_optimize off, num_threads 4, with and
# without use_experimental_executor). Fetch: every parameter, gradient, feed and other non-temporary
# LoDTensor variable of the program is fetched each step and is finite. Feed: a DataFeeder's
# decorate_reader(multi_devices=True) gives one feed per device, and the step runs on them. Images are
# 3x32x32, not 3x224x224, to keep the run short. CUDA branches run where CUDA is.
import math
import os

import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid import compiler

os.environ["CPU_NUM"] = str(4)
IMAGE = [3, 32, 32]


def Lenet(data, class_dim):
    conv1 = fluid.layers.conv2d(data, 32, 5, 1, act=None)
    bn1 = fluid.layers.batch_norm(conv1, act="relu")
    pool1 = fluid.layers.pool2d(bn1, 2, "max", 2)
    conv2 = fluid.layers.conv2d(pool1, 50, 5, 1, act=None)
    bn2 = fluid.layers.batch_norm(conv2, act="relu")
    pool2 = fluid.layers.pool2d(bn2, 2, "max", 2)
    fc1 = fluid.layers.fc(pool2, size=500, act="relu")
    return fluid.layers.fc(fc1, size=class_dim, act="softmax")


def parallel_exe(use_cuda, run_parallel_exe, use_faster_executor=False, num_threads=4, seed=1):
    main_program, startup = fluid.Program(), fluid.Program()
    startup.random_seed = seed
    with fluid.program_guard(main_program, startup):
        data = fluid.layers.data(name="image", shape=IMAGE, dtype="float32")
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        out = Lenet(data, class_dim=102)
        loss = fluid.layers.mean(fluid.layers.cross_entropy(input=out, label=label))
        opt = fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9, regularization=fluid.regularizer.L2Decay(1e-4))
        opt.minimize(loss)
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup)
    build_strategy = fluid.BuildStrategy()
    build_strategy.enable_inplace = False
    build_strategy.memory_optimize = False
    exec_strategy = fluid.ExecutionStrategy()
    exec_strategy.use_experimental_executor = use_faster_executor
    exec_strategy.num_threads = num_threads
    train_cp = compiler.CompiledProgram(main_program).with_data_parallel(
        loss_name=loss.name, build_strategy=build_strategy, exec_strategy=exec_strategy
    )
    run_parallel_exe(train_cp, exe, use_cuda, data, label, loss)


def run_parallel_exe_with_fetch(compiled_program, exe, use_cuda, data, label, loss):
    def get_data(batch_size=8):
        np.random.seed(5)
        while True:
            img = np.random.random(size=[batch_size] + IMAGE).astype(np.float32)
            lbl = (np.random.random(size=[batch_size, 1]) * 10).astype(np.int64)
            yield img, lbl

    fetch_list = [
        name
        for name, var in compiled_program._program.global_block().vars.items()
        if "tmp" not in name and (name[0] != "_" or var.persistable) and var.type == core.VarDesc.VarType.LOD_TENSOR
    ]
    assert any(n.endswith(".w_0") for n in fetch_list) and any(n.endswith(".w_0@GRAD") for n in fetch_list)
    for batch_id, (img, lbl) in enumerate(get_data()):
        ret = exe.run(
            compiled_program, fetch_list=fetch_list, feed={data.name: img, label.name: lbl}, return_numpy=True
        )
        assert len(ret) == len(fetch_list)
        for name, value in zip(fetch_list, ret):
            total = np.sum(value)
            assert not math.isnan(total) and not math.isinf(total), name
        if batch_id == 2:
            break


def run_parallel_exe_with_feed(compiled_program, exe, use_cuda, data, label, loss):
    def get_data(batch_size=8):
        np.random.seed(5)
        while True:
            train_data = []
            for _ in range(batch_size):
                img = np.random.random(size=[1] + IMAGE).astype(np.float32)
                lbl = (np.random.random(size=[1, 1]) * 10).astype(np.int64)
                train_data.append([img, lbl])
            yield train_data

    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    feeder = fluid.DataFeeder(place=place, feed_list=[data, label])
    reader = feeder.decorate_reader(get_data, multi_devices=True)
    for batch_id, feed in enumerate(reader()):
        assert len(feed) == 4
        loss_np = exe.run(compiled_program, feed=feed, fetch_list=[loss.name])[0]
        assert loss_np.shape == (4,) and np.isfinite(loss_np).all(), loss_np
        print(batch_id, loss_np)
        if batch_id == 2:
            break


for run in (run_parallel_exe_with_fetch, run_parallel_exe_with_feed):
    for use_faster_executor in (False, True):
        if core.is_compiled_with_cuda():
            parallel_exe(use_cuda=True, run_parallel_exe=run, use_faster_executor=use_faster_executor)
        parallel_exe(use_cuda=False, run_parallel_exe=run, use_faster_executor=use_faster_executor)
print("ok")
