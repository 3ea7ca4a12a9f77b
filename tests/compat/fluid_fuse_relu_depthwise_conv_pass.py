# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_fuse_relu_depthwise_conv_pass.py @ 089fd37494e7ad726de55706bb99d274929208a5
# Re-written for pe (same API calls, same facts), run with `pe fluid`, in its Fluid 1.x form (use_cuda
# for DeviceType; fluid.layers.batch_norm and reshape for the 2.x spellings). Facts: a net of four
# separable convolutions (depthwise conv2d with groups = channels, batch norm, 1x1 conv2d, batch norm,
# relu) on 28x28 images, trained with SGD(1e-6, L2Decay) and also run forward only, gives the same
# first and last losses within 1e-6 with BuildStrategy.fuse_relu_depthwise_conv (and memory_optimize)
# and without. The harness's CPU_NUM (1) is kept, as the original sets none. CUDA branches run where
# CUDA is.
import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import assert_almost_equal, check_network_convergence


def norm(*args, **kargs):
    return fluid.layers.batch_norm(*args, **kargs)


def sep_conv(input, channel, stride, filter, dilation=1, act=None):
    # depthwise
    input = fluid.layers.conv2d(
        input,
        input.shape[1],
        filter,
        stride,
        groups=input.shape[1],
        padding=(filter // 2) * dilation,
        dilation=dilation,
        use_cudnn=False,
        bias_attr=False,
    )
    input = norm(input)
    if act:
        input = act(input)
    # pointwise
    input = fluid.layers.conv2d(input, channel, 1, 1, groups=1, padding=0, bias_attr=False)
    input = norm(input)
    if act:
        input = act(input)
    return input


def simple_depthwise_net(use_feed):
    assert use_feed
    img = fluid.layers.data(name="image", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    hidden = fluid.layers.reshape(img, (-1, 1, 28, 28))
    for _ in range(4):
        hidden = sep_conv(hidden, channel=200, stride=2, filter=5)
        hidden = fluid.layers.relu(hidden)
    prediction = fluid.layers.fc(hidden, size=10, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))


def init_data(random=True):
    np.random.seed(5)
    img = np.random.random(size=[32, 784]).astype(np.float32) if random else np.ones([32, 784], "float32")
    return img, np.ones(shape=[32, 1], dtype="int64")


def compare(model, use_cuda, random_data=True, only_forward=False):
    if use_cuda and not core.is_compiled_with_cuda():
        return
    img, label = init_data(random_data)

    def _optimizer(learning_rate=1e-6):
        return fluid.optimizer.SGD(learning_rate=learning_rate, regularization=fluid.regularizer.L2Decay(1e-6))

    if only_forward:
        _optimizer = None
    fuse_first, fuse_last = check_network_convergence(
        model,
        feed_dict={"image": img, "label": label},
        use_cuda=use_cuda,
        fuse_relu_depthwise_conv=True,
        use_ir_memory_optimize=True,
        optimizer=_optimizer,
    )
    not_fuse_first, not_fuse_last = check_network_convergence(
        model,
        feed_dict={"image": img, "label": label},
        use_cuda=use_cuda,
        fuse_relu_depthwise_conv=False,
        optimizer=_optimizer,
    )
    for a, b in zip(not_fuse_first, fuse_first):
        assert_almost_equal(a, b, 1e-6, "first loss, unfused vs fused: ")
    for a, b in zip(not_fuse_last, fuse_last):
        assert_almost_equal(a, b, 1e-6, "last loss, unfused vs fused: ")


# test_simple_depthwise_with_fuse_op
compare(simple_depthwise_net, True)
compare(simple_depthwise_net, False)
# test_simple_depthwise_with_fuse_op_only_forward
compare(simple_depthwise_net, True, only_forward=True)
compare(simple_depthwise_net, False, only_forward=True)
print("ok")
