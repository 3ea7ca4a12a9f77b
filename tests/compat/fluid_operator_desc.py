# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_operator_desc.py @ 00c410494eab73b9cebe0747a007919a8bd397eb
# Re-written for pe (same API calls and facts), run with `pe fluid`. Two differences: pe's message for
# an unknown op starts with Fluid's sentence and adds the closest known ops, so the check is on that
# start; and of the attributes Fluid's C++ core adds to every mul op (scale_x, op_callstack, ...) pe
# has the op's own, so attr_names is checked to hold those.
import paddle.fluid.core as core
from paddle.fluid.framework import Program, default_startup_program

main_program = default_startup_program()

block = main_program._create_block()
try:
    block.append_op()
    raise AssertionError("append_op() was accepted")
except ValueError as v_err:
    assert str(v_err) == "`type` to initialized an Operator can not be None.", str(v_err)
try:
    block.append_op(type="no_such_op")
    raise AssertionError("no_such_op was accepted")
except ValueError as a_err:
    assert str(a_err).startswith('Operator "no_such_op" has not been registered.'), str(a_err)

program = Program()
block = program.current_block()
mul_x = block.create_var(dtype="float32", shape=[5, 10], lod_level=0, name="mul.x")
mul_y = block.create_var(dtype="float32", shape=[10, 8], lod_level=0, name="mul.y")
mul_out = block.create_var(dtype="float32", shape=[5, 8], lod_level=0, name="mul.out")
mul_op = block.append_op(
    type="mul", inputs={"X": [mul_x], "Y": mul_y}, outputs={"Out": [mul_out]}, attrs={"x_num_col_dims": 1}
)
assert str(mul_op) != ""
assert mul_op.type == "mul"
assert mul_op.input_names == ["X", "Y"]
assert mul_op.input("X") == ["mul.x"]
assert mul_op.input("Y") == ["mul.y"]
assert mul_op.output_names == ["Out"]
assert mul_op.output("Out") == ["mul.out"]
assert {"x_num_col_dims", "y_num_col_dims"} <= set(mul_op.attr_names), mul_op.attr_names
assert mul_op.has_attr("x_num_col_dims")
assert mul_op.attr_type("x_num_col_dims") == core.AttrType.INT
assert mul_op.attr("x_num_col_dims") == 1
assert mul_op.has_attr("y_num_col_dims")
assert mul_op.attr_type("y_num_col_dims") == core.AttrType.INT
assert mul_op.attr("y_num_col_dims") == 1
assert mul_op.idx == 0
assert mul_out.op == mul_op

program = Program()
block = program.current_block()
sum_x1 = block.create_var(dtype="int", shape=[3, 4], lod_level=0, name="sum.x1")
sum_x2 = block.create_var(dtype="int", shape=[3, 4], lod_level=0, name="sum.x2")
sum_x3 = block.create_var(dtype="int", shape=[3, 4], lod_level=0, name="sum.x3")
sum_out = block.create_var(dtype="int", shape=[3, 4], lod_level=0, name="sum.out")
sum_op = block.append_op(type="sum", inputs={"X": [sum_x1, sum_x2, sum_x3]}, outputs={"Out": sum_out})
assert sum_op.type == "sum"
assert sum_op.input_names == ["X"]
assert sum_op.input("X") == ["sum.x1", "sum.x2", "sum.x3"]
assert sum_op.output_names == ["Out"]
assert sum_op.output("Out") == ["sum.out"]
assert sum_op.idx == 0
assert sum_out.op == sum_op
print("ok")
