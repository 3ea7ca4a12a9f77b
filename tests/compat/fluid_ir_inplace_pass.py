# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_ir_inplace_pass.py @ 007ff517954ba21e534c48bea63f91eb750662cc
# Re-written for pe (same API calls, same facts), run with `pe fluid` on CPU_NUM=4 devices: a 3-layer
# fc + batch-norm net trained with Adam through with_data_parallel on the GPU gives the same losses
# within 1e-3 with BuildStrategy.memory_optimize and enable_inplace off, each on alone, and both on.
# As in Paddle the case runs only where CUDA is (on a machine without it the script checks nothing
# else and prints ok). Paddle's helper returns nothing, so its comparisons were of None with None;
# here it returns the first and last losses and those are compared, element by element.
import os

import numpy as np

import paddle.fluid as fluid
import paddle.fluid.core as core
from _parallel_executor_base import assert_almost_equal, check_network_convergence

os.environ["CPU_NUM"] = str(4)


def fc_with_batchnorm(use_feed):
    img = fluid.layers.data(name="image", shape=[784], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    hidden = img
    for _ in range(3):
        hidden = fluid.layers.fc(
            hidden, size=200, act="tanh", bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(value=1.0))
        )
        hidden = fluid.layers.batch_norm(input=hidden)
    prediction = fluid.layers.fc(hidden, size=10, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prediction, label=label))


def fc_with_batchnorm_losses(ir_memory_optimize, enable_inplace):
    np.random.seed(5)
    img = np.random.random(size=[32, 784]).astype(np.float32)
    label = np.ones(shape=[32, 1], dtype="int64")
    first, last = check_network_convergence(
        fc_with_batchnorm,
        feed_dict={"image": img, "label": label},
        use_cuda=True,
        use_ir_memory_optimize=ir_memory_optimize,
        enable_inplace=enable_inplace,
    )
    return np.concatenate([np.ravel(first), np.ravel(last)])


if core.is_compiled_with_cuda():
    delta = 1e-3
    loss00 = fc_with_batchnorm_losses(False, False)
    for other in (
        fc_with_batchnorm_losses(True, False),
        fc_with_batchnorm_losses(False, True),
        fc_with_batchnorm_losses(True, True),
    ):
        for a, b in zip(loss00, other):
            assert_almost_equal(a, b, delta, "loss with and without memory_optimize / enable_inplace: ")
print("ok")
