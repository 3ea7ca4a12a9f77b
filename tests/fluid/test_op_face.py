"""What Paddle's op tests (op_test.py of Fluid 1.8) call, on pe (issue 53): ``fluid.op.Operator`` run on a
scope, op protos from the registry, grad op descs from its gradient makers, LoDTensor element access,
and the eager ``dygraph.guard`` with ``backward()``."""

import os
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from paths import REPO
from pe_cli import layers
from pe_cli.fluid import core
from pe_cli.fluid.framework import OpProtoHolder
from pe_cli.fluid.op import Operator


def _mul_inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((3, 4)), rng.standard_normal((4, 2))


def test_operator_runs_on_a_scope_and_element_access_perturbs_its_input():
    x, y = _mul_inputs()
    scope = core.Scope()
    for name, value in (("x", x), ("y", y)):
        scope.var(name).get_tensor().set(value, core.CPUPlace())
    scope.var("out").get_tensor()
    op = Operator("mul", X="x", Y="y", Out="out", x_num_col_dims=1)
    op.run(scope, core.CPUPlace())
    np.testing.assert_allclose(np.array(scope.find_var("out").get_tensor()), x @ y)
    tensor = scope.find_var("x").get_tensor()
    tensor._set_double_element(5, tensor._get_double_element(5) + 1.0)
    op.run(scope, core.CPUPlace())
    bumped = x.copy()
    bumped.reshape(-1)[5] += 1.0
    np.testing.assert_allclose(np.array(scope.find_var("out").get_tensor()), bumped @ y)
    assert op.type() == "mul" and ("X", False) in Operator.get_op_inputs("mul")


def test_op_proto_flags_come_from_the_registry():
    proto = OpProtoHolder.instance().get_op_proto("sum")
    assert [(v.name, v.duplicable) for v in proto.inputs] == [("X", True)]
    ln = OpProtoHolder.instance().get_op_proto("layer_norm")
    assert {v.name for v in ln.inputs if v.dispensable} == {"Scale", "Bias"}
    assert {v.name: v.intermediate for v in ln.outputs}["Y"] is True  # given or not, the op writes it
    epsilon = next(a for a in ln.attrs if a.name == "epsilon")
    assert epsilon.type == core.AttrType.FLOAT and epsilon.default == pytest.approx(1e-5)
    with pytest.raises(ValueError, match=r'Operator "no_such_op" has not been registered\.'):
        OpProtoHolder.instance().get_op_proto("no_such_op")


def test_grad_op_desc_and_inplace_queries():
    program = fluid.Program()
    block = program.global_block()
    for name, shape in (("x", (3, 4)), ("y", (4, 2)), ("out", None)):
        block.create_var(name=name, shape=shape, dtype="float64")
    op = block.append_op("mul", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {})
    descs, to_var = core.get_grad_op_desc(op.desc, set(), [])
    assert all(d.type().startswith("mul_grad") for d in descs)  # pe's maker: one op per input
    assert {n for d in descs for n in d.output_arg_names()} == {"x@GRAD", "y@GRAD"}
    assert to_var["x@GRAD"] == "x" and to_var["out@GRAD"] == "out"
    descs, _ = core.get_grad_op_desc(op.desc, {"y"}, [])
    assert [n for d in descs for n in d.output_arg_names()] == ["x@GRAD"]
    assert len(block.ops) == 1  # the op's own block is left alone
    assert core.has_infer_inplace("relu") and not core.has_infer_inplace("mul")
    assert core.has_grad_op_maker("mul") and not core.has_grad_op_maker("fill_constant")


def test_eager_guard_runs_ops_at_once_and_backward_gives_gradients():
    x, y = _mul_inputs()
    with fluid.dygraph.guard(fluid.CPUPlace()):
        assert fluid.framework.in_dygraph_mode()
        block = fluid.default_main_program().global_block()
        vx, vy = fluid.dygraph.to_variable(x), fluid.dygraph.to_variable(y)
        vx.stop_gradient = False
        out = block.create_var(name="out", dtype="float64")
        block.append_op("mul", {"X": [vx], "Y": [vy]}, {"Out": [out]}, {})
        np.testing.assert_allclose(np.array(out.value().get_tensor()), x @ y)
        loss = block.create_var(name="loss", dtype="float64")
        block.append_op("mean", {"X": [out]}, {"Out": [loss]}, {})
        loss.backward()
        np.testing.assert_allclose(vx.gradient(), np.ones((3, 2)) / 6 @ y.T)
        assert vy.gradient() is None  # to_variable's default: stop_gradient
    assert not fluid.framework.in_dygraph_mode()


def test_eager_backward_of_many_values_starts_from_ones_and_variables_take_pow():
    """test_elementwise_pow_op's TestElementwisePowGradOpInt (in floats): ``x ** y`` of Variables, and
    backward() of a non-scalar, whose gradient Fluid's dygraph seeds with ones."""
    x_, y_ = np.array([1.0, 3.0, 6.0]), np.array([1.0, 2.0, 1.0])
    with fluid.dygraph.guard(fluid.CPUPlace()):
        x, y = fluid.dygraph.to_variable(x_), fluid.dygraph.to_variable(y_)
        x.stop_gradient = y.stop_gradient = False
        res = x**y
        res.backward()
        np.testing.assert_allclose(res.numpy(), x_**y_)
        np.testing.assert_allclose(res.gradient(), np.ones(3))
        np.testing.assert_allclose(x.gradient(), y_ * x_ ** (y_ - 1))
        np.testing.assert_allclose(y.gradient(), np.log(x_) * x_**y_)


def test_eager_backward_differentiates_int_tensors_as_fluids_dygraph():
    """TestElementwisePowGradOpInt itself: Fluid's dygraph gives int64 ``x ** y`` int64 gradients (its
    grad kernels' values cast to int64: dy = int(log(x) x ** y)); a static program's backward does not."""
    x_, y_ = np.array([1, 3, 6]), np.array([1, 1, 1])
    with fluid.dygraph.guard(fluid.CPUPlace()):
        x, y = fluid.dygraph.to_variable(x_), fluid.dygraph.to_variable(y_)
        x.stop_gradient = y.stop_gradient = False
        res = x**y
        res.backward()
        for got, want in ((res.gradient(), [1, 1, 1]), (x.gradient(), [1, 1, 1]), (y.gradient(), [0, 3, 10])):
            assert got.dtype == np.int64 and got.tolist() == want


def test_selected_rows_face_of_a_scope_variable():
    scope = core.Scope()
    sparse = scope.var("in").get_selected_rows()
    sparse.set_height(10)
    sparse.set_rows([0, 4, 7])
    values = np.arange(6.0).reshape(3, 2)
    sparse.get_tensor().set(values, core.CPUPlace())
    out = scope.var("out").get_selected_rows()
    out_values = out.get_tensor()  # taken before the run: it shows what the run wrote
    Operator("scale", X="in", Out="out", scale=2.0).run(scope, core.CPUPlace())
    assert out.height() == 10 and out.rows() == [0, 4, 7]
    np.testing.assert_array_equal(np.array(out_values), 2.0 * values)


def test_shape_of_a_selected_rows_is_its_values():
    """shape of a SelectedRows: its value's dims [rows, ...], as Fluid's and Paddle's (test_shape_op.py's
    TestShapeWithSelectedRows; pe gave the dense [height, ...])."""
    scope = core.Scope()
    sparse = scope.var("in").get_selected_rows()
    sparse.set_height(20)
    sparse.set_rows([0, 1, 5, 4, 19])
    sparse.get_tensor().set(np.ones((5, 2), "float32"), core.CPUPlace())
    out = scope.var("out").get_tensor()
    Operator("shape", Input="in", Out="out").run(scope, core.CPUPlace())
    assert np.array(out).tolist() == [5, 2]


def test_fake_init_gives_the_shape_to_a_dense_or_a_row_sparse_variable():
    for sparse in (False, True):
        scope = core.Scope()
        var = scope.var("out")
        out = var.get_selected_rows().get_tensor() if sparse else var.get_tensor()  # taken before the run
        Operator("fake_init", Out="out", shape=[4, 7]).run(scope, core.CPUPlace())
        assert out._get_dims() == [4, 7]  # a list, as Fluid's


def test_get_tensor_from_selected_rows_of_a_dense_variable_or_an_array_is_a_type_error():
    with fluid.program_guard(fluid.Program()):
        x = fluid.data("X", [2, 3])
        for bad in (x, np.zeros((2, 3), "float32")):
            with pytest.raises(TypeError, match="get_tensor_from_selected_rows"):
                fluid.layers.get_tensor_from_selected_rows(x=bad)


def test_split_and_sum_of_row_sparse_values_as_fluid_1_8():
    """split_selected_rows' sections may add up past X's height (Fluid checks each row only); sum of
    SelectedRows gives each row once, ascending, its values summed (MergeAdd); a keyword that is no
    slot or attribute of the op is dropped, as by Fluid's Operator; numel() counts the values."""
    scope = core.Scope()
    x = scope.var("X").get_selected_rows()
    x.set_rows([0, 5, 4, 20])
    x.set_height(21)
    x.get_tensor().set(np.arange(8.0).reshape(4, 2), core.CPUPlace())
    outs = [scope.var(f"out{i}").get_selected_rows() for i in range(3)]
    Operator("split_selected_rows", X="X", Out=["out0", "out1", "out2"], height_sections=[5, 5, 13]).run(
        scope, core.CPUPlace()
    )
    assert [o.rows() for o in outs] == [[0, 4], [0], [10]] and outs[2].height() == 13
    assert outs[0].numel() == 4
    np.testing.assert_array_equal(np.array(outs[2].get_tensor()), [[6.0, 7.0]])
    total = scope.var("total").get_selected_rows()
    Operator("sum", X=["out0", "out1"], Out="total", height_sections=[5, 5]).run(scope, core.CPUPlace())
    assert total.rows() == [0, 4] and total.height() == 5
    np.testing.assert_array_equal(np.array(total.get_tensor()), [[2.0, 4.0], [4.0, 5.0]])


def test_op_support_gpu_is_false_without_cuda():
    assert core.op_support_gpu("sum") == core.is_compiled_with_cuda()
    assert not core.op_support_gpu("no_such_op")


def test_dtype_attributes_as_fluid_enum_numbers():
    assert int(core.VarDesc.VarType.FP64) == 6 and core.VarDesc.VarType.FP64 == "float64"
    scope = core.Scope()
    scope.var("x").get_tensor().set(np.array([1.5, -2.0], np.float32), core.CPUPlace())
    Operator(
        "cast", X="x", Out="y", in_dtype=int(core.VarDesc.VarType.FP32), out_dtype=int(core.VarDesc.VarType.FP64)
    ).run(scope, core.CPUPlace())
    y = np.array(scope.find_var("y").get_tensor())
    assert y.dtype == np.float64 and y.tolist() == [1.5, -2.0]


def test_a_dtype_choice_attribute_takes_fluid_enum_numbers():
    """tdm_sampler's dtype (a choice of 'int32' / 'int64') given as Fluid's VarType number, as its op test does."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data("x", shape=[1], dtype="int64")
        travel = layers.data("travel", shape=[4, 1], dtype="int64", append_batch_size=False)
        layer = layers.data("layer", shape=[4, 1], dtype="int64", append_batch_size=False)
        block = main.global_block()
        outs = {slot: [block.create_var(name=slot, dtype="int64")] for slot in ("Out", "Labels", "Mask")}
        op = block.append_op(
            "tdm_sampler",
            {"X": [x], "Travel": [travel], "Layer": [layer]},
            outs,
            {
                "neg_samples_num_list": [1],
                "layer_offset_lod": [0, 4],
                "output_positive": True,
                "dtype": int(fluid.core.VarDesc.VarType.INT64),
            },
        )
    assert op.attrs["dtype"] == "int64"


def test_grad_of_a_slice_grad_keeps_the_tensor_bounds():
    """op_test's walk over grad op descs (its inplace check): slice with StartsTensor and no starts
    attribute, its slice_grad, and that op's own gradient (a slice of ddX) with the same tensor."""
    block = fluid.Program().global_block()
    block.create_var(name="x", shape=(3, 4, 5), dtype="float64")
    block.create_var(name="starts", shape=(2,), dtype="int32")
    block.create_var(name="out", dtype="float64")
    op = block.append_op(
        "slice",
        {"Input": ["x"], "StartsTensor": ["starts"]},
        {"Out": ["out"]},
        {"axes": [0, 1], "ends": [2, 3], "infer_flags": [-1, -1]},
    )
    (grad,), _ = core.get_grad_op_desc(op.desc, set(), [])
    assert grad.type() == "slice_grad" and grad.input("StartsTensor") == ["starts"]
    (grad_grad,), _ = core.get_grad_op_desc(grad, set(), [])
    assert grad_grad.type() == "slice" and grad_grad.input("StartsTensor") == ["starts"]


def test_op_test_spellings_of_attributes():
    """An attribute the op does not declare is dropped (Fluid's Operator copies the proto's only), a
    dtype attribute takes Fluid's VarType number (convert_np_dtype_to_dtype_'s int()), and a value a
    fill_any_like output cannot hold is Fluid's EnforceNotMet."""
    dtype = fluid.framework.convert_np_dtype_to_dtype_(np.int32)
    assert dtype == "int32" and int(dtype) == 2 and int(fluid.framework.convert_np_dtype_to_dtype_("float64")) == 6
    main = fluid.Program()
    block = main.global_block()
    for name in ("x", "c", "big", "nan"):
        block.create_var(name=name, shape=(2, 3) if name == "x" else None, dtype="float32")
    with pytest.warns(UserWarning, match="'lambda' is not one of fill_constant's"):
        block.append_op(
            "fill_constant", {}, {"Out": ["c"]}, {"shape": [2], "dtype": int(dtype), "value": 3.0, "lambda": 0.5}
        )
    assert block.var("c").dtype == "int32"
    with pytest.raises(core.EnforceNotMet, match="out of range"):
        block.append_op("fill_any_like", {"X": ["x"]}, {"Out": ["big"]}, {"value": 1e100, "dtype": "int32"})
    with pytest.raises(core.EnforceNotMet, match="out of range"):
        block.append_op("fill_any_like", {"X": ["x"]}, {"Out": ["nan"]}, {"value": float("nan"), "dtype": "int64"})
    (out,) = fluid.Executor(fluid.CPUPlace()).run(main, fetch_list=["c"], scope=fluid.Scope())
    np.testing.assert_array_equal(out, np.array([3, 3], np.int32))


def test_an_output_its_kernel_leaves_unwritten_stays_uninitialised():
    """dropout with is_test writes no Mask (test_dropout_op.py's TestDropoutOp4 names one): as Fluid's, the
    scope's variable exists, uninitialised, and Out is X * (1 - dropout_prob)."""
    x = np.random.default_rng(1).random((4, 3)).astype("float32")
    scope = core.Scope()
    scope.var("x").get_tensor().set(x, core.CPUPlace())
    for name in ("out", "mask"):
        scope.var(name).get_tensor()
    Operator("dropout", X="x", Out="out", Mask="mask", dropout_prob=0.35, is_test=True).run(scope, core.CPUPlace())
    np.testing.assert_allclose(np.array(scope.find_var("out").get_tensor()), x * 0.65, rtol=1e-6)


@pytest.mark.parametrize(
    "act, slots",
    [
        ("relu", {"Out": "out", "DDX": "x@GRAD@GRAD", "DDOut": "out@GRAD@GRAD"}),
        ("leaky_relu", {"Out": "out", "DDX": "x@GRAD@GRAD", "DDOut": "out@GRAD@GRAD"}),  # Out: Fluid 1.8.5's
        ("elu", {"X": "x", "DOut": "out@GRAD", "DDX": "x@GRAD@GRAD", "DX": "x@GRAD", "DDOut": "out@GRAD@GRAD"}),
        ("sqrt", {"Out": "out", "DX": "x@GRAD", "DDX": "x@GRAD@GRAD", "DOut": "out@GRAD", "DDOut": "out@GRAD@GRAD"}),
        ("square", {"X": "x", "DOut": "out@GRAD", "DDX": "x@GRAD@GRAD", "DX": "x@GRAD", "DDOut": "out@GRAD@GRAD"}),
    ],
)
def test_gradient_of_an_activation_gradient_is_fluids_one_grad_grad_op(act, slots):
    """op_test's in-place check runs each grad op desc alone, fed from the op above it: the gradient of
    relu_grad, leaky_relu_grad, elu_grad, sqrt_grad and square_grad is Fluid's one <act>_grad_grad op,
    with Fluid's slots, reading only that op's variables and the gradients the map names (no temporaries)."""
    block = fluid.Program().global_block()
    for name in ("x", "out"):
        block.create_var(name=name, shape=(2, 3), dtype="float64")
    op = block.append_op(act, {"X": ["x"]}, {"Out": ["out"]}, {})
    (grad,), _ = core.get_grad_op_desc(op.desc, set(), [])
    (grad_grad,), to_var = core.get_grad_op_desc(grad, set(), [])
    assert grad_grad.type() == f"{act}_grad_grad"
    names = {s: grad_grad.input(s) or grad_grad.output(s) for s in grad_grad.input_names() + grad_grad.output_names()}
    assert {s: n[0] for s, n in names.items() if n} == slots
    own = set(grad.input_arg_names() + grad.output_arg_names())
    assert to_var["x@GRAD@GRAD"] == "x@GRAD" and not own & set(to_var)  # the op's own variables: not gradients
    assert all(n in own or to_var.get(n) in own for n in grad_grad.input_arg_names())


def test_elu_grad_grad_runs_alone_as_fluids():
    """elu_grad_grad by itself (fluid.op.Operator): DX = DDX * DOut * alpha * e^x where x < 0, and
    DDOut = DDX where x > 0, DDX * alpha * e^x elsewhere (Fluid 1.8's ELUGradGradFunctor)."""
    rng = np.random.default_rng(1)
    x, dout, ddx = rng.uniform(-2, 2, (3, 4)), rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (3, 4))
    scope = core.Scope()
    for name, value in (("x", x), ("dout", dout), ("ddx", ddx)):
        scope.var(name).get_tensor().set(value, core.CPUPlace())
    for name in ("dx", "ddout"):
        scope.var(name).get_tensor()
    Operator("elu_grad_grad", X="x", DOut="dout", DDX="ddx", DX="dx", DDOut="ddout", alpha=0.7).run(
        scope, core.CPUPlace()
    )
    got_dx, got_ddout = (np.array(scope.find_var(n).get_tensor()) for n in ("dx", "ddout"))
    np.testing.assert_allclose(got_dx, np.where(x < 0, ddx * dout * 0.7 * np.exp(x), 0), rtol=1e-12)
    np.testing.assert_allclose(got_ddout, np.where(x > 0, ddx, ddx * 0.7 * np.exp(x)), rtol=1e-12)


def test_gradient_of_elementwise_div_grad_is_fluids_one_grad_grad_op():
    """As the activations': elementwise_div_grad's gradient is elementwise_div_grad_grad alone, reading
    Y, Out, DX (its X@GRAD) and the gradients of its outputs (test_elementwise_div_op.py's in-place walk)."""
    block = fluid.Program().global_block()
    for name, shape in (("x", (2, 3)), ("y", (3,)), ("out", (2, 3))):
        block.create_var(name=name, shape=shape, dtype="float64")
    op = block.append_op("elementwise_div", {"X": ["x"], "Y": ["y"]}, {"Out": ["out"]}, {"axis": 1})
    (grad,), _ = core.get_grad_op_desc(op.desc, set(), [])
    (grad_grad,), to_var = core.get_grad_op_desc(grad, set(), [])
    assert grad_grad.type() == "elementwise_div_grad_grad" and grad_grad.input("DX") == ["x@GRAD"]
    assert grad_grad.output("DDOut") == ["out@GRAD@GRAD"] and to_var["out@GRAD@GRAD"] == "out@GRAD"
    own = set(grad.input_arg_names() + grad.output_arg_names())
    assert all(n in own or to_var.get(n) in own for n in grad_grad.input_arg_names())


def test_gradient_of_cholesky_is_fluids_one_cholesky_grad_op():
    """test_cholesky_op.py's in-place walk runs each gradient op alone: cholesky's gradient is Fluid 1.8's
    one cholesky_grad, reading Out and Out@GRAD only (its numerics: the cholesky cases of tests/ops)."""
    block = fluid.Program().global_block()
    for name in ("x", "out"):
        block.create_var(name=name, shape=(3, 3), dtype="float64")
    op = block.append_op("cholesky", {"X": ["x"]}, {"Out": ["out"]}, {"upper": True})
    (grad,), _ = core.get_grad_op_desc(op.desc, set(), [])
    assert grad.type() == "cholesky_grad" and grad.attr("upper") is True
    assert (grad.input("Out"), grad.input("Out@GRAD"), grad.output("X@GRAD")) == (["out"], ["out@GRAD"], ["x@GRAD"])


def test_device_guard_records_op_device_as_fluid():
    """test_device_guard.py: an op built inside device_guard has op_device set (core's kOpDeviceAttrName);
    every op has the attribute (\"\" unset); a control-flow op warns it is not placed, a force_cpu that the
    guard wins; a device other than cpu and gpu is a ValueError."""
    import warnings

    name = core.op_proto_and_checker_maker.kOpDeviceAttrName()
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.fill_constant([1], "float32", 1.0)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with fluid.device_guard("gpu"):
                y = fluid.layers.fill_constant([1], "float32", 2.0, force_cpu=True)
                cond = fluid.layers.less_than(x, y)
                loop = fluid.layers.While(cond=cond)
                with loop.block():
                    fluid.layers.less_than(x=y, y=x, cond=cond)
        ops = fluid.default_main_program().global_block().ops
    assert [op.desc.attr(name) for op in ops] == ["", "gpu", "gpu", ""]
    assert all(op.desc.has_attr(name) for op in ops)
    said = [str(w.message) for w in seen]
    assert "The Op(while) is not support to set device." in said
    assert sum("'device_guard' has higher priority" in s for s in said) == 1
    with pytest.raises(
        ValueError,
        match=r"The Attr\(device\) should be 'cpu' or 'gpu', and it can also be empty string or None when there is no need to",
    ):
        with fluid.device_guard("cpu1"):
            pass


def test_sgd_of_a_row_sparse_parameter_moves_the_rows_the_gradient_names():
    """test_sgd_op.py's TestSGDOpOptimizeSelectedRows: Param a SelectedRows (rows 0..7 of a table), Grad a
    SelectedRows of height 10 at rows [0, 4, 7]: each of those Param rows moves by -lr * its Grad row."""
    scope, place = core.Scope(), core.CPUPlace()
    grad = scope.var("Grad").get_selected_rows()
    grad.set_height(10)
    grad.set_rows([0, 4, 7])
    g = np.ones((3, 12), "float32")
    g[2, 8] = 4.0
    grad.get_tensor().set(g, place)
    param = scope.var("Param").get_selected_rows()
    param.set_height(8)
    param.set_rows(list(range(8)))
    w = np.arange(8, dtype="float32")[:, None] * np.ones((8, 12), "float32")
    param.get_tensor().set(w, place)
    scope.var("LearningRate").get_tensor().set(np.full(1, 0.1, "float32"), place)
    Operator("sgd", Param="Param", Grad="Grad", ParamOut="Param", LearningRate="LearningRate").run(scope, place)
    want = w.copy()
    want[[0, 4, 7]] -= 0.1 * g
    np.testing.assert_array_equal(np.array(scope.find_var("Param").get_selected_rows().get_tensor()), want)


RENAME_OUTPUT = """\
import numpy as np
import paddle.fluid as fluid
x = fluid.layers.data(name="x", shape=[2], dtype="float32")
y = fluid.layers.relu(x)
block = fluid.default_main_program().global_block()
out = block.create_var(name="renamed", shape=y.shape, dtype=y.dtype)
relu = block.ops[-1]
relu._rename_output(y.name, "renamed")
exe = fluid.Executor(fluid.CPUPlace())
print(relu.output("Out"), exe.run(feed={"x": np.array([[-1.0, 2.0]], "float32")}, fetch_list=["renamed"])[0])
relu._rename_input("x", "x")
"""


def test_operator_rename_output_beside_rename_input(tmp_path):
    """Fluid 1.8.5's ``Operator._rename_output(old, new)``, which its transpilers call beside
    ``_rename_input``: the op writes the new name."""
    (tmp_path / "prog.py").write_text(RENAME_OUTPUT)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", "prog.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=REPO),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["['renamed']", "[[0.", "2.]]"], proc.stdout
