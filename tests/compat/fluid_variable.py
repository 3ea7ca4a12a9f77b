# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_variable.py @ 8b4344e84ea0ad2b1ac0d3fbfd281a03558c821f
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
from paddle.fluid.framework import Program, default_main_program, convert_np_dtype_to_dtype_

DT = core.VarDesc.VarType
for np_dtype, fluid_dtype in [
    ("float32", DT.FP32),
    ("float16", DT.FP16),
    ("float64", DT.FP64),
    ("int32", DT.INT32),
    ("int64", DT.INT64),
    ("bool", DT.BOOL),
]:
    assert convert_np_dtype_to_dtype_(np.dtype(np_dtype)) == fluid_dtype, np_dtype
    assert convert_np_dtype_to_dtype_(np_dtype) == fluid_dtype, np_dtype

b = default_main_program().current_block()
w = b.create_var(dtype="float64", shape=[784, 100], lod_level=0, name="fc.w")
assert w.dtype == DT.FP64
assert tuple(w.shape) == (784, 100)
assert w.name == "fc.w"
assert w.lod_level == 0
w = b.create_var(name="fc.w")
assert w.dtype == DT.FP64 and tuple(w.shape) == (784, 100)

prog = Program()
with fluid.program_guard(prog):
    x = fluid.layers.data(name="x", shape=[10], dtype="float32")
    assert x.stop_gradient
    assert tuple(x.shape) == (-1, 10)
print("ok")
