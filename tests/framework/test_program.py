"""The IR as users see it: names, guards, clone, printing, parameters."""

import uuid

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError, ShapeError
from pe_cli.framework import OpRole


def build_mlp():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4])
        y = fluid.layers.data("y", [1], dtype="int64")
        h = fluid.layers.fc(x, 8, act="relu")
        logits = fluid.layers.fc(h, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
    return main, startup, loss


def test_fluid_style_unique_names():
    main, startup, _ = build_mlp()
    names = [p.name for p in main.global_block().all_parameters()]
    assert names == ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    # the startup program initializes exactly the parameters
    assert {op.output("Out")[0] for op in startup.global_block().ops} == set(names)


def test_unique_name_guard_restarts_numbering():
    a, _, _ = build_mlp()
    b, _, _ = build_mlp()
    assert [p.name for p in a.all_parameters()] == [p.name for p in b.all_parameters()]


def test_program_guard_restores_defaults():
    before = fluid.default_main_program()
    main, _, _ = build_mlp()
    assert fluid.default_main_program() is before
    assert main is not before


def test_program_guard_rejects_non_programs():
    with pytest.raises(TypeError, match="main_program must be a Program"):
        with fluid.program_guard("main"):
            pass


def test_op_roles_and_sources():
    main, startup, loss = build_mlp()
    with fluid.program_guard(main, startup):
        fluid.optimizer.SGD(0.1).minimize(loss)
    roles = [op.role & ~OpRole.Loss for op in main.global_block().ops]
    first_backward = roles.index(OpRole.Backward)
    first_optimize = roles.index(OpRole.Optimize)
    assert all(r == OpRole.Forward for r in roles[:first_backward])
    assert first_backward < first_optimize
    assert loss.op.role & OpRole.Loss
    # every op knows where it was built: this test file
    assert all(op.source and op.source.startswith("test_program.py:") for op in main.global_block().ops)
    assert main.global_block().ops[0].layer == "fc_0"


def test_to_string_is_readable():
    main, _, _ = build_mlp()
    text = str(main)
    assert "var fc_0.w_0 : float32[4x8] (persistable)" in text
    assert "{Out=[fc_0.tmp_0]} = mul(X=[x], Y=[fc_0.w_0])" in text
    assert main.to_string(True) == text


def test_clone_is_deep_and_keeps_ops():
    main, _, loss = build_mlp()
    test = main.clone(for_test=True)
    assert len(test.global_block().ops) == len(main.global_block().ops)
    test.global_block().ops[0].attrs["x_num_col_dims"] = 7
    assert main.global_block().ops[0].attrs["x_num_col_dims"] == 1
    assert test.global_block().var(loss.name) is not loss
    assert [p.name for p in test.all_parameters()] == [p.name for p in main.all_parameters()]


def test_list_vars_and_random_seed():
    main, _, _ = build_mlp()
    names = [v.name for v in main.list_vars()]
    assert "x" in names and "fc_1.b_0" in names
    main.random_seed = 5
    assert main.clone().random_seed == 5
    assert main.num_blocks == 1 and main.block(0) is main.global_block()


def test_shape_mismatch_caught_at_build_time_names_layer_and_shapes():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        y = fluid.layers.data("y", [5])
        with pytest.raises(
            ShapeError,
            match=r"op 'elementwise_add' of layer 'elementwise_add_\d+' built at .*: X \[-1, 4\] and Y \[-1, 5\] cannot broadcast \(axis=-1: Y's dims must match X's dims from that",
        ) as err:
            x + y
    message = str(err.value)
    assert "elementwise_add" in message and "[-1, 4]" in message and "[-1, 5]" in message
    assert "test_program.py" in message


def test_ops_over_a_variable_created_without_a_shape_build_and_run_on_the_values():
    """Fluid 1.8.5 builds sum, concat, reduce_sum, stack, ... over create_tensor's variables (no shape
    yet: kylezhang/learn_paddlepaddle's P002/index.001.py) and computes with the fed values' shapes;
    the outputs' shapes are unknown until then. A declared shape keeps its build-time check."""
    import numpy as np

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.layers.create_tensor(dtype="int64", name="a")
        b = fluid.layers.create_tensor(dtype="int64", name="b")
        outs = [
            fluid.layers.sum([a, b]),
            fluid.layers.concat([a, b]),
            fluid.layers.reduce_sum(a),
            fluid.layers.stack([a, b]),
            fluid.layers.equal(a, b),
        ]
    assert all(o.shape is None for o in outs)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"a": np.array([3, 2], "int64"), "b": np.array([1, 2], "int64")}, fetch_list=outs
    )
    assert [g.tolist() for g in got] == [[4, 4], [3, 2, 1, 2], [5], [[3, 2], [1, 2]], [False, True]]


def test_an_inference_rules_own_type_error_is_not_taken_for_an_unknown_shape(monkeypatch):
    """An op's outputs are unknown where its rule reads an input with no shape (registry.UnknownShape);
    a TypeError the rule raises itself is a bug in the rule and propagates, even where an input of the
    op has no shape."""
    from pe_cli.ops import registry

    def buggy(ctx):
        return ctx.attrs["keep_dim"] + "a bug"

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = fluid.layers.create_tensor(dtype="float32", name="a")
        assert fluid.layers.reduce_sum(a).shape is None
        monkeypatch.setattr(registry.get("reduce_sum"), "infer", buggy)
        with pytest.raises(TypeError, match="unsupported operand"):
            fluid.layers.reduce_sum(a)


def test_appending_grad_times_counts_backward_passes_as_fluids():
    """Program._appending_grad_times, which programs print (chenwhql/PaddleScripts' prune_block.py):
    each append_backward of a global-block loss and each gradients() call; clone() keeps it,
    clone(for_test=True) starts at 0, as Fluid 1.8.5's."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.layers.data("x", [4])
        loss = fluid.layers.mean(fluid.layers.fc(x, 1))
        assert main._appending_grad_times == 0
        fluid.optimizer.SGD(0.1).minimize(loss)
        fluid.gradients([loss], [x])
    assert main._appending_grad_times == 2
    assert main.clone()._appending_grad_times == 2
    assert main.clone(for_test=True)._appending_grad_times == 0


def test_unknown_op_type_suggests_closest():
    main = fluid.Program()
    with pytest.raises(PeError, match="did you mean 'relu'"):
        main.global_block().append_op("rellu", {"X": []}, {"Out": []})


def test_undeclared_attribute_is_ignored_with_a_warning():
    """As Fluid's Operator, which copies only the attributes of the op's proto; the warning names the
    closest declared one (a typo shows)."""
    main = fluid.Program()
    block = main.global_block()
    block.create_var(name="a", shape=[2, 3])
    block.create_var(name="b")
    with pytest.warns(UserWarning, match="attribute 'scal' is not one of scale's .*did you mean 'scale'"):
        op = block.append_op("scale", {"X": ["a"]}, {"Out": ["b"]}, {"scal": 2.0})
    assert "scal" not in op.attrs and op.attrs["scale"] == 1.0


def test_an_undeclared_attribute_beginning_with_an_underscore_is_ignored_as_any_other():
    """No op keeps a private flag in its attributes (issue 95 item 3): ``_flag`` is undeclared like ``scal``."""
    main = fluid.Program()
    block = main.global_block()
    block.create_var(name="a", shape=[2, 3])
    block.create_var(name="b")
    with pytest.warns(UserWarning, match="attribute '_paddle2' is not one of scale's"):
        op = block.append_op("scale", {"X": ["a"]}, {"Out": ["b"]}, {"_paddle2": True})
    assert "_paddle2" not in op.attrs


def test_attribute_given_as_none_takes_its_default():
    """Fluid's Operator skips an attribute whose value is None."""
    main = fluid.Program()
    block = main.global_block()
    block.create_var(name="a", shape=[2, 3])
    block.create_var(name="b", shape=[3, 4])
    block.create_var(name="c")
    op = block.append_op("mul", {"X": ["a"], "Y": ["b"]}, {"Out": ["c"]}, {"x_num_col_dims": None})
    assert op.attrs["x_num_col_dims"] == 1 and block.var("c").shape == (2, 4)


def test_attribute_out_of_range_is_an_error():
    main = fluid.Program()
    block = main.global_block()
    block.create_var(name="a", shape=[2, 3])
    block.create_var(name="b", shape=[3, 4])
    block.create_var(name="c")
    with pytest.raises(PeError, match="x_num_col_dims=0 is out of range; expected >= 1"):
        block.append_op("mul", {"X": ["a"], "Y": ["b"]}, {"Out": ["c"]}, {"x_num_col_dims": 0})


def test_name_scope_nests_numbers_a_prefix_entered_again_and_marks_ops():
    from pe_cli.framework.program import current_name_scope

    prefix = f"encoder{uuid.uuid4().hex[:8]}"  # the scope tree is global, as Fluid's
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.layers.data("x", [3])
        with fluid.name_scope(prefix):
            with fluid.name_scope("attention"):
                assert current_name_scope() == f"/{prefix}/attention/"
                fluid.layers.relu(x)
        with fluid.name_scope(prefix):
            assert current_name_scope() == f"/{prefix}_1/"
            fluid.layers.tanh(x)
    assert current_name_scope() == "/"
    assert [op.desc.attr("op_namescope") for op in main.global_block().ops] == [
        f"/{prefix}/attention/",
        f"/{prefix}_1/",
    ]


def test_clone_for_test_after_minimize_prunes_backward_and_optimize_as_fluid():
    """Fluid 1.8.5 (and Paddle 2.6) prune the loss's backward, the optimizer and the learning-rate ops
    from clone(for_test=True), with the variables only they used (checked on the 1.8.5 wheel: fc,
    batch_norm, mean, SGD over exponential_decay leaves [mul, elementwise_add, batch_norm, mean] and 13
    of 27 variables); running the clone twice gives the same values (it does not train)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4])
        loss = fluid.layers.mean(fluid.layers.batch_norm(fluid.layers.fc(x, 3)))
        fluid.optimizer.SGD(fluid.layers.exponential_decay(0.1, 10, 0.9)).minimize(loss)
    test = main.clone(for_test=True)
    assert [op.type for op in test.global_block().ops] == ["mul", "elementwise_add", "batch_norm", "mean"]
    assert (len(main.global_block().vars), len(test.global_block().vars)) == (27, 13)
    assert test.global_block().ops[2].attr("is_test") is True
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    xs = np.arange(8, dtype="float32").reshape(2, 4)
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": xs}, fetch_list=[loss], scope=scope)
    (first,) = exe.run(test, feed={"x": xs}, fetch_list=[loss], scope=scope)
    (second,) = exe.run(test, feed={"x": xs}, fetch_list=[loss], scope=scope)
    np.testing.assert_array_equal(first, second)
