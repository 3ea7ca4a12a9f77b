# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/parallel_executor_test_base.py @ 006b09f40cf18267ebbf0750c4045af7b9bc4cb9
# and simple_nets.py and fake_reader.py of the same folder, in their Fluid 1.x forms (use_cuda rather
# than 2.x's DeviceType; Program.random_seed rather than paddle.seed). A helper the fluid_parallel_*
# and fluid_fuse_* scripts import, as Paddle's tests import those modules; not a case of its own (its
# name starts with an underscore). Re-written for pe (same API calls), run through `pe fluid`.
import math
import multiprocessing
import os
import sys
import time

import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid import compiler


# -- simple_nets.py ---------------------------------------------------------------------------------
def _fc_stack(img, label, hidden_size, with_batchnorm, class_num=10):
    hidden = img
    for _ in range(2):
        hidden = fluid.layers.fc(
            hidden,
            size=hidden_size,
            act="relu",
            bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=1.0)),
        )
        if with_batchnorm:
            hidden = fluid.layers.batch_norm(input=hidden)
    prediction = fluid.layers.fc(hidden, size=class_num, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))


def _image_and_label():
    return (
        fluid.layers.data(name="image", shape=[784], dtype="float32"),
        fluid.layers.data(name="label", shape=[1], dtype="int64"),
    )


def simple_fc_net(use_feed=None):
    img, label = _image_and_label()
    return _fc_stack(img, label, 100, with_batchnorm=False)


def fc_with_batchnorm(use_feed=None):
    img, label = _image_and_label()
    return _fc_stack(img, label, 200, with_batchnorm=True)


def bow_net(use_feed, dict_dim, is_sparse=False, emb_dim=128, hid_dim=128, hid_dim2=96, class_dim=2):
    words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    emb = fluid.layers.embedding(input=words, is_sparse=is_sparse, size=[dict_dim, emb_dim])
    bow = fluid.layers.sequence_pool(input=emb, pool_type="sum")
    fc_1 = fluid.layers.fc(input=fluid.layers.tanh(bow), size=hid_dim, act="tanh")
    fc_2 = fluid.layers.fc(input=fc_1, size=hid_dim2, act="tanh")
    prediction = fluid.layers.fc(input=[fc_2], size=class_dim, act="softmax")
    return fluid.layers.mean(x=fluid.layers.cross_entropy(input=prediction, label=label))


def init_data(batch_size=32, img_shape=[784], label_range=9):
    np.random.seed(5)
    img = np.random.random(size=[batch_size] + list(img_shape)).astype(np.float32)
    label = np.array([np.random.randint(0, label_range) for _ in range(batch_size)]).reshape((-1, 1))
    return img, label.astype("int64")


# -- fake_reader.py --------------------------------------------------------------------------------
def fake_imdb_reader(word_dict_size, sample_num, lower_seq_len=100, upper_seq_len=200, class_dim=2):
    def __reader__():
        for _ in range(sample_num):
            length = np.random.randint(lower_seq_len, upper_seq_len + 1)
            ids = np.random.randint(0, word_dict_size, size=[length]).astype("int64")
            yield ids, int(np.random.randint(0, class_dim))

    return __reader__


# -- parallel_executor_test_base.py ----------------------------------------------------------------
def set_strategy(
    enable_inplace,
    enable_sequential_execution,
    fuse_all_optimizer_ops,
    fuse_all_reduce_ops,
    fuse_elewise_add_act_ops,
    fuse_relu_depthwise_conv,
    use_fast_executor,
    use_ir_memory_optimize,
    use_reduce,
    use_cuda,
):
    exec_strategy = fluid.ExecutionStrategy()
    if use_fast_executor:
        exec_strategy.use_experimental_executor = True
    build_strategy = fluid.BuildStrategy()
    build_strategy.reduce_strategy = (
        fluid.BuildStrategy.ReduceStrategy.Reduce if use_reduce else fluid.BuildStrategy.ReduceStrategy.AllReduce
    )
    build_strategy.fuse_elewise_add_act_ops = fuse_elewise_add_act_ops
    build_strategy.fuse_relu_depthwise_conv = fuse_relu_depthwise_conv
    build_strategy.fuse_all_optimizer_ops = fuse_all_optimizer_ops
    build_strategy.fuse_all_reduce_ops = fuse_all_reduce_ops
    build_strategy.memory_optimize = use_ir_memory_optimize
    build_strategy.enable_inplace = enable_inplace
    build_strategy.enable_sequential_execution = enable_sequential_execution
    if use_cuda and core.is_compiled_with_cuda():
        build_strategy.remove_unnecessary_lock = True
    return build_strategy, exec_strategy


def build_model(feed_dict, get_data_from_feeder, main, method, optimizer):
    loss = method(use_feed=feed_dict is not None)
    # as Paddle's base: the memory passes must not rely on the loss being persistable
    loss.persistable = False
    if optimizer:
        optimizer().minimize(loss)
    if get_data_from_feeder is not None:
        assert feed_dict is None
        feed_dict = get_data_from_feeder()
    return feed_dict, loss


def check_network_convergence(
    method,
    use_cuda=True,
    iter=5,
    batch_size=None,
    feed_dict=None,
    get_data_from_feeder=None,
    use_parallel_executor=True,
    use_reduce=False,
    use_ir_memory_optimize=False,
    enable_inplace=True,
    fuse_elewise_add_act_ops=False,
    fuse_all_optimizer_ops=False,
    fuse_all_reduce_ops=False,
    fuse_relu_depthwise_conv=False,
    optimizer=fluid.optimizer.Adam,
    use_fast_executor=False,
    enable_sequential_execution=False,
    seed=1,
):
    """Trains ``method``'s net iter + 2 steps on the fed batch; returns the first and last losses
    (one per device when data parallel)."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        feed_dict, loss = build_model(feed_dict, get_data_from_feeder, main, method, optimizer)
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    exe.run(startup)
    build_strategy, exec_strategy = set_strategy(
        enable_inplace,
        enable_sequential_execution,
        fuse_all_optimizer_ops,
        fuse_all_reduce_ops,
        fuse_elewise_add_act_ops,
        fuse_relu_depthwise_conv,
        use_fast_executor,
        use_ir_memory_optimize,
        use_reduce,
        use_cuda,
    )
    if use_parallel_executor:
        binary = compiler.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=build_strategy, exec_strategy=exec_strategy
        )
    else:
        binary = main
    if batch_size is not None:
        batch_size *= (
            fluid.core.get_cuda_device_count()
            if use_cuda
            else int(os.environ.get("CPU_NUM", multiprocessing.cpu_count()))
        )
    begin = time.time()
    (first_loss,) = exe.run(binary, feed=feed_dict, fetch_list=[loss.name])
    for _ in range(iter):
        exe.run(binary, feed=feed_dict, fetch_list=[])
    (last_loss,) = exe.run(binary, feed=feed_dict, fetch_list=[loss.name])
    end = time.time()
    if batch_size is not None:
        print("%.4f Instance per second" % ((batch_size * iter + 2) / (end - begin)))
    if math.isnan(float(np.array(last_loss).mean())) or math.isnan(float(np.array(first_loss).mean())):
        sys.exit("got NaN loss, training failed.")
    print(first_loss, last_loss)
    return first_loss, last_loss


def check_pass_conflict(
    method,
    use_cuda=True,
    feed_dict=None,
    get_data_from_feeder=None,
    use_reduce=False,
    use_ir_memory_optimize=True,
    enable_inplace=True,
    fuse_elewise_add_act_ops=False,
    fuse_all_optimizer_ops=False,
    fuse_all_reduce_ops=False,
    fuse_relu_depthwise_conv=False,
    optimizer=fluid.optimizer.Adam,
    use_fast_executor=True,
    enable_sequential_execution=False,
):
    """Builds and runs one step with these passes together: they must not conflict."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        feed_dict, loss = build_model(feed_dict, get_data_from_feeder, main, method, optimizer)
    exe = fluid.Executor(fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace())
    exe.run(startup)
    build_strategy, exec_strategy = set_strategy(
        enable_inplace,
        enable_sequential_execution,
        fuse_all_optimizer_ops,
        fuse_all_reduce_ops,
        fuse_elewise_add_act_ops,
        fuse_relu_depthwise_conv,
        use_fast_executor,
        use_ir_memory_optimize,
        use_reduce,
        use_cuda,
    )
    binary = compiler.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=build_strategy, exec_strategy=exec_strategy
    )
    exe.run(binary, feed=feed_dict, fetch_list=[loss.name])


def assert_almost_equal(a, b, delta, what=""):
    """unittest's assertAlmostEqual(a, b, delta=delta)."""
    if not abs(float(a) - float(b)) <= delta:
        raise AssertionError(f"{what}{a} != {b} within {delta}")
