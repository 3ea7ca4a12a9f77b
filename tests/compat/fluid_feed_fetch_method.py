# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_feed_fetch_method.py @ 12f70db6ebab7dc56aa2d8f8167153ae5fffa9d8
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid.core as core

scope = core.Scope()
place = core.CPUPlace()
input_array = np.ones((4, 4, 6)).astype("float32")
input_array[0, 0, 0] = 3
input_array[3, 3, 5] = 10
input_tensor = core.LoDTensor([[2, 2]])
input_tensor.set(input_array, place)

core.set_feed_variable(scope, input_tensor, "feed", 0)

output = scope.var("fetch").get_fetch_list()
output.append(input_tensor)
output_tensor = core.get_fetch_variable(scope, "fetch", 0)

output_lod = output_tensor.recursive_sequence_lengths()
assert output_lod[0][0] == 2 and output_lod[0][1] == 2
output_array = np.array(output_tensor)
assert output_array[0, 0, 0] == 3
assert output_array[3, 3, 5] == 10
print("ok")
