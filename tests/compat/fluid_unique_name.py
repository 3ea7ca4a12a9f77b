# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_unique_name.py @ 35a492b0d8ceaee85182780ba7b0080a75955a25
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import paddle.fluid as fluid

with fluid.unique_name.guard():
    name_1 = fluid.unique_name.generate("")
with fluid.unique_name.guard():
    name_2 = fluid.unique_name.generate("")
assert name_1 == name_2, (name_1, name_2)

with fluid.unique_name.guard("A"):
    name_1 = fluid.unique_name.generate("")
with fluid.unique_name.guard("B"):
    name_2 = fluid.unique_name.generate("")
assert name_1 != name_2, (name_1, name_2)

generator = fluid.unique_name.UniqueNameGenerator()
assert generator("tmp") == "tmp_0"
assert generator("tmp") == "tmp_1"
old = fluid.unique_name.switch(generator)
assert fluid.unique_name.generate("tmp") == "tmp_2"
fluid.unique_name.switch(old)
print("ok")
