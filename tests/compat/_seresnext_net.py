# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/seresnext_net.py @ 012a6d0301e0c83a3fc294ff91ef03bf91416601
# and seresnext_test_base.py of the same folder, in their Fluid 1.x forms (use_cuda for DeviceType;
# fluid.layers.reduce_mean, elementwise_add and relu for the 2.x calls). A helper the
# fluid_parallel_executor_seresnext_* scripts import, not a case (its name starts with an underscore).
# As in Paddle, dropout and batch norm are removed so that the data-parallel and the single-device
# losses can be compared. Smaller to keep the scripts short: 3x32x32 images (not 3x224x224), stages
# of depth [1, 1, 1, 1] with [16, 32, 64, 128] filters and cardinality 8 (not [3, 4, 6, 3],
# [128, 256, 512, 1024] and 32), 100 classes (not 1000).
import os

import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid.layers.learning_rate_scheduler import cosine_decay
from _parallel_executor_base import assert_almost_equal, check_network_convergence, init_data

os.environ["CPU_NUM"] = str(4)

remove_dropout = True
remove_bn = True
remove_cudnn_conv = True
img_shape = [3, 32, 32]
class_num = 100


def squeeze_excitation(input, num_channels, reduction_ratio):
    shape = input.shape
    reshape = fluid.layers.reshape(x=input, shape=[-1, shape[1], shape[2] * shape[3]])
    pool = fluid.layers.reduce_mean(input=reshape, dim=2)
    squeeze = fluid.layers.fc(input=pool, size=num_channels // reduction_ratio, act="relu")
    excitation = fluid.layers.fc(input=squeeze, size=num_channels, act="sigmoid")
    return fluid.layers.elementwise_mul(x=input, y=excitation, axis=0)


def conv_bn_layer(input, num_filters, filter_size, stride=1, groups=1, act=None):
    conv = fluid.layers.conv2d(
        input=input,
        num_filters=num_filters,
        filter_size=filter_size,
        stride=stride,
        padding=(filter_size - 1) // 2,
        groups=groups,
        act=None,
        use_cudnn=(not remove_cudnn_conv),
        bias_attr=False,
    )
    return conv if remove_bn else fluid.layers.batch_norm(input=conv, act=act, momentum=0.1)


def shortcut(input, ch_out, stride):
    if input.shape[1] == ch_out:
        return input
    return conv_bn_layer(input, ch_out, 1 if stride == 1 else 3, stride)


def bottleneck_block(input, num_filters, stride, cardinality, reduction_ratio):
    conv0 = conv_bn_layer(input=input, num_filters=num_filters, filter_size=1, act="relu")
    conv1 = conv_bn_layer(
        input=conv0, num_filters=num_filters * 2, filter_size=3, stride=stride, groups=cardinality, act="relu"
    )
    conv2 = conv_bn_layer(input=conv1, num_filters=num_filters * 2, filter_size=1, act=None)
    scale = squeeze_excitation(input=conv2, num_channels=num_filters * 2, reduction_ratio=reduction_ratio)
    short = shortcut(input, num_filters * 2, stride)
    return fluid.layers.relu(fluid.layers.elementwise_add(x=short, y=scale))


def SE_ResNeXt50Small(use_feed):
    img = fluid.layers.data(name="image", shape=img_shape, dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    conv = conv_bn_layer(input=img, num_filters=16, filter_size=3, stride=2, act="relu")
    conv = conv_bn_layer(input=conv, num_filters=16, filter_size=3, stride=1, act="relu")
    conv = conv_bn_layer(input=conv, num_filters=16, filter_size=3, stride=1, act="relu")
    conv = fluid.layers.pool2d(input=conv, pool_size=3, pool_stride=2, pool_padding=1, pool_type="max")
    cardinality, reduction_ratio = 8, 16
    depth, num_filters = [1, 1, 1, 1], [16, 32, 64, 128]
    for block in range(len(depth)):
        for i in range(depth[block]):
            conv = bottleneck_block(
                input=conv,
                num_filters=num_filters[block],
                stride=2 if i == 0 and block != 0 else 1,
                cardinality=cardinality,
                reduction_ratio=reduction_ratio,
            )
    shape = conv.shape
    reshape = fluid.layers.reshape(x=conv, shape=[-1, shape[1], shape[2] * shape[3]])
    pool = fluid.layers.reduce_mean(input=reshape, dim=2)
    dropout = pool if remove_dropout else fluid.layers.dropout(x=pool, dropout_prob=0.2, seed=1)
    prediction = fluid.layers.fc(input=dropout, size=class_num, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))


def optimizer(learning_rate=0.01):
    return fluid.optimizer.Momentum(
        learning_rate=cosine_decay(learning_rate=learning_rate, step_each_epoch=2, epochs=1),
        momentum=0.9,
        regularization=fluid.regularizer.L2Decay(1e-4),
    )


model = SE_ResNeXt50Small


def batch_size(use_cuda):
    return 4 if use_cuda else 12


def iter(use_cuda):
    return 10 if use_cuda else 1


gpu_img, gpu_label = init_data(batch_size=batch_size(use_cuda=True), img_shape=img_shape, label_range=class_num - 1)
cpu_img, cpu_label = init_data(batch_size=batch_size(use_cuda=False), img_shape=img_shape, label_range=class_num - 1)


def feed_dict(use_cuda):
    return {"image": gpu_img, "label": gpu_label} if use_cuda else {"image": cpu_img, "label": cpu_label}


# -- seresnext_test_base.py -------------------------------------------------------------------------
def compare_result_with_origin_model(check_func, use_cuda, delta2=1e-5, compare_separately=True):
    """The data-parallel AllReduce run of the model against ``check_func``'s run of it: first losses
    within 1e-5, last within ``delta2`` (device by device, or the devices' mean against one loss)."""
    if use_cuda and not core.is_compiled_with_cuda():
        return
    func_1_first_loss, func_1_last_loss = check_network_convergence(
        model,
        feed_dict=feed_dict(use_cuda),
        iter=iter(use_cuda),
        batch_size=batch_size(use_cuda),
        use_cuda=use_cuda,
        use_reduce=False,
        optimizer=optimizer,
    )
    func_2_first_loss, func_2_last_loss = check_func(
        model, feed_dict=feed_dict(use_cuda), iter=iter(use_cuda), batch_size=batch_size(use_cuda), use_cuda=use_cuda
    )
    if compare_separately:
        for a, b in zip(func_1_first_loss, func_2_first_loss):
            assert_almost_equal(a, b, 1e-5, "first loss: ")
        for a, b in zip(func_1_last_loss, func_2_last_loss):
            assert_almost_equal(a, b, delta2, "last loss: ")
    else:
        assert_almost_equal(np.mean(func_1_first_loss), func_2_first_loss[0], 1e-5, "first loss: ")
        assert_almost_equal(np.mean(func_1_last_loss), func_2_last_loss[0], delta2, "last loss: ")
