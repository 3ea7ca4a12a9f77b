# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_program.py @ 0c899494f36ff597c21e55365c39b22825cec19d
# Re-written for pe (same API calls, same facts asserted; the py_reader and desc cases are left out), run with `pe fluid`.
import paddle.fluid as fluid
import paddle.fluid.layers as layers
from paddle.fluid.framework import Program, default_main_program, program_guard

# clone keeps the parameters
main_program, startup_program = Program(), Program()
with program_guard(main_program, startup_program):
    d = layers.data(name="x", shape=[784], dtype="float32")
    hidden = layers.fc(input=d, size=100)
    layers.fc(input=hidden, size=100)
new_program = main_program.clone()
assert len(new_program.blocks[0].all_parameters()) != 0

# a program built by hand prints and clones
prog = Program()
x = prog.global_block().create_var(name="X", shape=[1000, 784], dtype="float32")
y = prog.global_block().create_var(name="Y", shape=[784, 100], dtype="float32")
out = prog.global_block().create_var(name="Out", dtype="float32")
prog.global_block().append_op(type="mul", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]})
assert "mul" in str(prog) and "mul" in str(prog.clone())

# all_parameters in creation order
program = Program()
with program_guard(program, Program()), fluid.unique_name.guard():
    data = fluid.data(name="x", shape=[None, 13], dtype="float32")
    hidden = fluid.layers.fc(input=data, size=10)
    loss = fluid.layers.mean(hidden)
    fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
names = [p.name for p in program.all_parameters()]
assert names == ["fc_0.w_0", "fc_0.b_0"], names

# block nesting
b = default_main_program().current_block()
assert (b.idx, b.parent_idx) == (0, -1)
b = default_main_program()._create_block()
assert (b.idx, b.parent_idx) == (1, 0)
default_main_program()._rollback()
assert default_main_program().current_block().idx == 0
print("ok")
