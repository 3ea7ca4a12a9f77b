# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_program_to_string.py @ 8261015352b34b7e9c9686ccc5e63ca92b61fb82
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import paddle.fluid as fluid

prog = fluid.default_main_program()
a = fluid.layers.data(name="X", shape=[2, 3], dtype="float32", append_batch_size=False)
c = fluid.layers.fc(a, size=3)
prog_string = prog.to_string(throw_on_error=True, with_details=False)
prog_string_with_details = prog.to_string(throw_on_error=False, with_details=True)
assert prog_string is not None
assert len(prog_string_with_details) > len(prog_string), "with_details=True adds nothing"
print("ok")
