# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_scope.py @ 85a75663b880bd8cfc5d670bbc0abf5593f9a89b
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid.core as core

scope = core.Scope()
assert scope is not None
var_a = scope.var("var_a")
assert var_a is not None
assert scope.find_var("var_a") is not None
assert scope.find_var("var_b") is None
tensor = scope.var("test_tensor").get_tensor()
tensor.set(np.arange(6, dtype="float32").reshape(2, 3), core.CPUPlace())
assert np.array(scope.find_var("test_tensor").get_tensor()).tolist() == [[0, 1, 2], [3, 4, 5]]
var = scope.var("test_int")
var.set_int(10)
assert var.is_int()
assert var.get_int() == 10
print("ok")
