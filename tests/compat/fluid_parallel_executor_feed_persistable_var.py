# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_parallel_executor_feed_persistable_var.py @ 0610216b658cb93070ce028def5778fae1f88866
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices: a
# persistable learning rate (layers.create_global_var) fed with one value goes to every device and the
# data-parallel step runs; fed with two values on four devices it is a RuntimeError, and so is a feed
# of one sample's image (a 1-D array) for the [-1, 784] image. simple_fc_net and init_data are
# simple_nets.py's (in _parallel_executor_base.py). CUDA branches run where CUDA is.
import os

import numpy

import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import init_data, simple_fc_net

os.environ["CPU_NUM"] = str(4)
IMG, LABEL = init_data(4, img_shape=[784], label_range=9)


def optimizer():
    learning_rate = fluid.layers.create_global_var(
        name="learning_rate", shape=[1], value=1.0, dtype="float32", persistable=True
    )
    return fluid.optimizer.SGD(learning_rate=learning_rate)


def check_feed_persistable_var(feed_dict, use_cuda=False):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    place = fluid.CUDAPlace(0) if use_cuda else fluid.CPUPlace()
    exe = fluid.Executor(place)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = simple_fc_net()
        optimizer().minimize(loss)
        exe.run(program=startup)
        compiled_prog = fluid.compiler.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
        exe.run(program=compiled_prog, feed=feed_dict)


def assert_raises(exc_type, feed_dict):
    try:
        check_feed_persistable_var(feed_dict)
    except exc_type as e:
        print(type(e).__name__, e)
        return
    raise AssertionError(f"feeding {sorted((k, numpy.shape(v)) for k, v in feed_dict.items())} did not raise")


feed_dict = {"image": IMG, "label": LABEL, "learning_rate": numpy.array([1.0]).astype("float32")}
check_feed_persistable_var(feed_dict)
check_feed_persistable_var(feed_dict, use_cuda=True)

feed_dict["learning_rate"] = numpy.array([1.0, 1.0]).astype("float32")
check_feed_persistable_var(feed_dict, use_cuda=True)  # with 1 or 2 GPUs: split, one value a device
assert_raises(RuntimeError, feed_dict)

feed_dict["image"] = IMG[0, :]
feed_dict["label"] = LABEL[0, :]
assert_raises(RuntimeError, feed_dict)
print("ok")
