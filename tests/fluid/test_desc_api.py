"""Fluid's desc-level API (core.ProgramDesc, BlockDesc, OpDesc, VarDesc) as Paddle's own unittests
use it: views of pe's Program, so what is built at desc level runs like any program."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import core


def _sum_block():
    prog = core.ProgramDesc()
    block = prog.block(0)
    for name in (b"x1", b"x2"):
        var = block.var(name)
        var.set_type(core.VarDesc.VarType.LOD_TENSOR)
        var.set_shape([10, 20])
    out = block.var(b"out")
    op = block.append_op()
    op.set_type("sum")
    op.set_input("X", ["x1", "x2"])
    op.set_output("Out", ["out"])
    return prog, block, op, out


def test_desc_built_op_infers_shape_and_defaults():
    _, block, op, out = _sum_block()
    assert out.shape() == []
    op.check_attrs()
    op.infer_shape(block)
    assert out.shape() == [10, 20]
    mul = block.append_op()
    mul.set_type("mul")
    mul.check_attrs()  # the registry's defaults filled in
    assert (mul.attr("x_num_col_dims"), mul.attr("y_num_col_dims")) == (1, 1)
    assert [block.op(i) for i in range(block.op_size())] == [op, mul]  # views of one op are equal


def test_block_and_var_views_write_through():
    prog, block, op, _ = _sum_block()
    assert set(block.all_vars()) == {block.find_var(b"x1"), block.find_var("x2"), block.find_var(b"out")}
    assert block.find_var(b"nope") is None
    var = block.var(b"x1")
    var.set_dtype(core.VarDesc.VarType.INT32)
    var.set_lod_level(1)
    assert (var.dtype(), var.lod_level()) == (core.VarDesc.VarType.INT32, 1)
    reader = block.var(b"r")
    reader.set_type(core.VarDesc.VarType.READER)
    reader.set_shapes([[2, 3], [4]])
    reader.set_dtypes([core.VarDesc.VarType.FP64, core.VarDesc.VarType.INT64])
    assert reader.shapes() == [[2, 3], [4]] and reader.dtypes() == ["float64", "int64"]
    first = block._prepend_op()
    assert block.op(0) == first and block.op_size() == 2
    block._remove_op(0, 1)
    assert [block.op(i) for i in range(block.op_size())] == [op]
    child = prog.append_block(block)
    assert (child.id, child.parent, prog.num_blocks()) == (1, 0, 2)


def test_attr_types_and_block_attr():
    block = fluid.Program().desc.block(0)
    op = block.append_op()
    op.set_type("test")
    op._set_attr("i", 1)
    op._set_attr("bs", [True, False])
    assert op.attr_type("i") == core.AttrType.INT and op.attr_type("bs") == core.AttrType.BOOLEANS
    op.set_block_attr("sub", block)
    assert op._block_attr_id("sub") == 0 and len(op.attr_names()) == 3


def test_desc_appended_grad_op_runs():
    """A grad op desc (core.get_grad_op_desc) copied into a block at desc level is run by the
    executor: d(x - y)/dx is the incoming gradient, dy minus its sum over the broadcast axes."""
    program = fluid.Program()
    x, y, dout = (
        np.random.rand(2, 3).astype("float32"),
        np.random.rand(3).astype("float32"),
        np.random.rand(2, 3).astype("float32"),
    )
    with fluid.program_guard(program):
        block = program.global_block()
        for name, shape in [("x", (2, 3)), ("y", (3,)), ("out", (2, 3)), ("out@GRAD", (2, 3))]:
            block.create_var(name=name, dtype="float32", shape=shape)
        op = block.append_op(
            type="elementwise_sub", inputs={"X": "x", "Y": "y"}, outputs={"Out": "out"}, attrs={"axis": 1}
        )
        grads, _ = core.get_grad_op_desc(op.desc, set(), [])
        new = block.desc.append_op()
        new.copy_from(grads[0])
        for name in grads[0].output_arg_names():
            block.desc.var(name.encode())
        grads[0].infer_shape(block.desc)
        assert block.desc.find_var(b"y@GRAD").shape() == [3]
    dx, dy = fluid.Executor(fluid.CPUPlace()).run(
        program, feed={"x": x, "y": y, "out@GRAD": dout}, fetch_list=["x@GRAD", "y@GRAD"]
    )
    np.testing.assert_allclose(dx, dout, rtol=1e-6)
    np.testing.assert_allclose(dy, -dout.sum(0), rtol=1e-6)


def test_program_desc_copies():
    prog, _, _, _ = _sum_block()
    copy = core.ProgramDesc(prog)
    assert copy != prog and copy.block(0).has_var(b"x1") and copy.block(0).op_size() == 1
    parsed = core.ProgramDesc(prog.serialize_to_string())
    assert parsed.block(0).find_var(b"x2").shape() == [10, 20]
    with pytest.raises(
        ValueError, match=r"Program\.parse_from_string: these bytes are not a program \(Fluid's ProgramDesc, as"
    ):
        core.ProgramDesc(b"not a program")


def test_descs_of_no_block_and_the_op_role():
    """core.VarDesc(name) and core.OpDesc() are descs of a new variable / op of no block (what IR-graph
    passes build nodes from); an op's role reads and writes as Fluid's attribute op_role."""
    var = core.VarDesc("w.int8")
    var.set_shape([2, 3])
    var.set_dtype(core.VarDesc.VarType.INT8)
    var.set_persistable(True)
    assert (var.name(), var.shape(), var.dtype(), var.persistable()) == ("w.int8", [2, 3], "int8", True)
    op = core.OpDesc()
    op.set_type("relu")
    op.set_input("X", ["x"])
    op._set_attr("op_role", 1)
    assert (op.type(), op.input("X"), op.attr("op_role"), op.has_attr("op_role")) == ("relu", ["x"], 1, True)
    _, _, sum_op, _ = _sum_block()
    assert sum_op.attr("op_role") == 0 and sum_op.attr("op_namescope") == "/"
