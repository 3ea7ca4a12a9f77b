# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_executor_and_mul.py @ 2e88627f0a64e1205ec93caa74cd635b307bc6a2
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
from paddle.fluid.executor import Executor
from paddle.fluid.layers import mul, data

a = data(name="a", shape=[784], dtype="float32")
b = data(name="b", shape=[784, 100], dtype="float32", append_batch_size=False)
output = mul(x=a, y=b)
place = fluid.CPUPlace()
a_np = np.random.random((100, 784)).astype("float32")
b_np = np.random.random((784, 100)).astype("float32")
exe = Executor(place)
outs = exe.run(feed={"a": a_np, "b": b_np}, fetch_list=[output])
assert np.allclose(outs[0], np.dot(a_np, b_np), rtol=1e-4)
print("ok")
