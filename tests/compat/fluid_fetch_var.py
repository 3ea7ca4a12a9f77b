# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_fetch_var.py @ be5852270992eeee4a4d6a05cf0f6b5ed9f5bc46
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.layers as layers

val = np.array([3, 4, 5]).astype(np.int32)
x = layers.create_tensor(dtype="int32", persistable=True, name="x")
layers.assign(input=val, output=x)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_main_program(), feed={}, fetch_list=[])
fetched_x = fluid.executor._fetch_var("x")
assert np.array_equal(fetched_x, val), fetched_x
assert fetched_x.dtype == val.dtype
print("ok")
