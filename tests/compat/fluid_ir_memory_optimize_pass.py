# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_ir_memory_optimize_pass.py @ 12f70db6ebab7dc56aa2d8f8167153ae5fffa9d8
# Re-written for pe (same API calls, same facts), run with `pe fluid`, in its Fluid 1.x form (use_cuda
# for DeviceType; fluid.layers.reshape and mean for the 2.x spellings; the stored file's merge-conflict
# markers resolved to the one meaning both sides share). Facts: a 4-layer fc net, and an fc net whose
# output goes through two reshapes (ops that run in place), trained with Adam through
# with_data_parallel, give the same first and last losses within 1e-6 with and without
# BuildStrategy.memory_optimize. The harness's CPU_NUM (1) is kept, as the original sets none. CUDA
# branches run where CUDA is.
import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import assert_almost_equal, check_network_convergence


def _feed_data_helper():
    img = fluid.layers.data(name="image", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    return img, label


def simple_fc_net(use_feed):
    assert use_feed
    x, y = _feed_data_helper()
    hidden_layer = 4
    for _ in range(hidden_layer):
        x = fluid.layers.fc(input=x, size=20, act="relu")
    y_predict = fluid.layers.fc(input=x, size=10, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=y_predict, label=y))


def fc_with_inplace_net(use_feed):
    assert use_feed
    x, y = _feed_data_helper()
    fc = fluid.layers.fc(input=x, size=20, act="relu")
    fc = fluid.layers.fc(input=fc, size=10, act="relu")
    reshape = fluid.layers.reshape(x=fc, shape=[-1, 2, 5])
    reshape = fluid.layers.reshape(x=reshape, shape=[-1, 5, 2])
    y_predict = fluid.layers.fc(input=reshape, size=10, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=y_predict, label=y))


def dummy_data():
    np.random.seed(5)
    img = np.random.random(size=[32, 784]).astype(np.float32)
    return img, np.ones(shape=[32, 1], dtype="int64")


def compare_ir_memory_optimize(model, use_cuda):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    img, label = dummy_data()
    first_loss0, last_loss0 = check_network_convergence(
        model, feed_dict={"image": img, "label": label}, use_cuda=use_cuda, use_ir_memory_optimize=False
    )
    first_loss1, last_loss1 = check_network_convergence(
        model, feed_dict={"image": img, "label": label}, use_cuda=use_cuda, use_ir_memory_optimize=True
    )
    for a, b in zip(first_loss0, first_loss1):
        assert_almost_equal(a, b, 1e-6, "first loss, without vs with memory_optimize: ")
    for a, b in zip(last_loss0, last_loss1):
        assert_almost_equal(a, b, 1e-6, "last loss, without vs with memory_optimize: ")


# test_simple_fc_net
compare_ir_memory_optimize(simple_fc_net, False)
compare_ir_memory_optimize(simple_fc_net, True)
# test_fc_with_reshape_net
compare_ir_memory_optimize(fc_with_inplace_net, False)
compare_ir_memory_optimize(fc_with_inplace_net, True)
print("ok")
