# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_name_scope.py @ 02c53c2deaa4a3752e53a80f278729600eaa084a
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`. As in Fluid 1.6+,
# `var + 1`, `* 1`, `/ 1` and `- 1` with a number build `scale` ops (Fluid's math_op_patch), so the
# namescope of each is checked in program order; `pow` is checked by type as the test does.
import paddle.fluid as fluid

with fluid.name_scope("s1"):
    a = fluid.layers.data(name="data", shape=[1], dtype="int32")
    b = a + 1
    with fluid.name_scope("s2"):
        c = b * 1
    with fluid.name_scope("s3"):
        d = c / 1
with fluid.name_scope("s1"):
    f = fluid.layers.pow(d, 2.0)
with fluid.name_scope("s4"):
    g = f - 1

scopes = []
for op in fluid.default_main_program().block(0).ops:
    if op.type == "pow":
        assert op.desc.attr("op_namescope") == "/s1_1/", op.desc.attr("op_namescope")
    elif op.type in ("scale", "elementwise_add", "elementwise_mul", "elementwise_div", "elementwise_sub"):
        scopes.append(op.desc.attr("op_namescope"))
assert scopes == ["/s1/", "/s1/s2/", "/s1/s3/", "/s4/"], scopes
print("ok")
