"""Fluid 1.8's cond and case as its unittests use them: gradients reach constants marked
differentiable and values computed from feeds (summed over nested branches), ``x == y`` between
Variables is an equal op, bad arguments raise Fluid's TypeError / ValueError, and a ParallelExecutor
checks a feed's shape per device."""

import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.backward import append_backward

layers = fluid.layers


def _run(main, fetch, feed=None):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_gradients_reach_constants_marked_differentiable():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        a = layers.fill_constant(shape=[1], dtype="float32", value=1.23)
        a.stop_gradient = False
        b = layers.fill_constant(shape=[1], dtype="float32", value=1.25)
        b.stop_gradient = False
        out = layers.cond(a - b < -1.0, lambda: a, lambda: b)
    append_backward(out)
    got = _run(main, [out, a.grad_name, b.grad_name])
    assert [g[0] for g in got] == [1.25, 0.0, 1.0]


@pytest.mark.parametrize("i, value, grad", [(3.0, 12.0, 2.0), (1.0, 0.0, 0.0), (6.0, 144.0, 24.0)])
def test_nested_branches_sum_their_gradients(i, value, grad):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="i", shape=[1], dtype="float32")
        a = 2.0 * x
        out = layers.cond(x < 5.0, lambda: layers.cond(x >= 3.0, lambda: a + a, lambda: a - a), lambda: a * a)
        append_backward(layers.mean(out))
    got = _run(main, [out, a.grad_name], {"i": np.full([1], i, "float32")})
    assert (got[0][0], got[1][0]) == (value, grad)


def test_variables_compared_with_eq_make_an_equal_op_for_case():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.fill_constant(shape=[1], dtype="float32", value=0.3)
        y = layers.fill_constant(shape=[1], dtype="float32", value=0.1)
        z = layers.fill_constant(shape=[1], dtype="float32", value=0.3)
        assert isinstance(x == y, fluid.framework.Variable) and (x == y).dtype == "bool"
        out = layers.case(
            [
                (x == y, lambda: layers.fill_constant([1], "int32", 1)),
                (x == z, lambda: layers.fill_constant([1], "int32", 2)),
            ],
            default=lambda: layers.fill_constant([1], "int32", 3),
        )
        ne = x != z
    got = _run(main, [out, ne])
    assert got[0][0] == 2 and not got[1][0]


def test_bad_arguments_raise_fluids_errors():
    def one():
        return layers.fill_constant([1], "int32", 1)

    with fluid.program_guard(fluid.Program(), fluid.Program()):
        pred = layers.fill_constant([1], "bool", True)
        with pytest.raises(TypeError, match=r"fluid\.layers\.cond: pred must be Variable, got bool"):
            layers.cond(True, one, one)
        with pytest.raises(TypeError, match="The true_fn in cond must be callable, but received set"):
            layers.cond(pred, set(), one)
        with pytest.raises(TypeError, match=r"fluid\.layers\.cond: name must be str\|NoneType, got set"):
            layers.cond(pred, one, one, set())
        with pytest.raises(ValueError, match="Incompatible return values of true_fn and false_fn in cond"):
            layers.cond(pred, lambda: None, one)
        with pytest.raises(ValueError, match="Incompatible return values of true_fn and false_fn in cond"):
            layers.cond(pred, one, lambda: (one(), one()))


def test_a_parallel_executor_checks_a_feed_per_device(monkeypatch):
    monkeypatch.setitem(os.environ, "CPU_NUM", "2")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        i = fluid.data(name="i", shape=[1], dtype="int32")
        out = layers.cast(i, "float32") * 2.0
    exe = fluid.ParallelExecutor(use_cuda=False, main_program=main)
    got = exe.run(feed={"i": np.array([3, 4], "int32")}, fetch_list=[out.name])
    np.testing.assert_array_equal(np.asarray(got[0]).ravel(), [6.0, 8.0])


def test_conditional_block_class_runs_when_its_input_is_not_empty_and_trains_through():
    from pe_cli.layers.control_flow import ConditionalBlock

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        data = layers.data(name="X", shape=[1], dtype="float32")
        data.stop_gradient = False
        block = ConditionalBlock(inputs=[data])
        out = layers.create_tensor(dtype="float32")
        with block.block():
            layers.assign(layers.scale(data, 3.0), out)
        append_backward(layers.mean(out))
    x = np.arange(4, dtype="float32").reshape(4, 1)
    got, grad = _run(main, [out, data.name + "@GRAD"], {"X": x})
    np.testing.assert_allclose(got, 3 * x)
    np.testing.assert_allclose(grad, np.full([4, 1], 0.75))
    with pytest.raises(AssertionError, match="ConditionalBlock: each input must be a Variable, got int"):
        ConditionalBlock(inputs=[1])


def test_an_op_takes_a_block_object_as_its_sub_block_attribute():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        sub = main._create_block()
        main._rollback()
        cond_var = layers.fill_constant(shape=[1], dtype="bool", value=False)
        op = main.global_block().append_op(
            type="conditional_block",
            inputs={"Cond": [cond_var], "Input": []},
            outputs={"Out": []},
            attrs={"sub_block": sub, "is_scalar_condition": True},
        )
    assert op.attrs["sub_block"] == sub.idx


def test_get_places_is_a_place_list_variable_its_op_fills():
    from pe_cli.fluid.layers_device import get_places

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        places = get_places(device_count=2, device_type="CPU")
    assert places.type == fluid.core.VarDesc.VarType.PLACE_LIST
    assert main.global_block().ops[-1].attrs == {"device_count": 2, "device_type": "CPU"}
    fluid.Executor(fluid.CPUPlace()).run(main, scope=fluid.Scope())


@pytest.mark.parametrize("mask", [0, 2])
def test_select_output_then_select_input_round_trips_values_and_gradients(mask):
    from pe_cli.layers.control_flow import select_input, select_output

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[2], dtype="float32")
        x.stop_gradient = False
        m = fluid.data(name="mask", shape=[1], dtype="int32")
        outs = [main.current_block().create_var(dtype="float32") for _ in range(3)]
        select_output(x, outs, m)
        y = select_input(outs, m)
        append_backward(layers.mean(y))
        with pytest.raises(TypeError, match="select_input: mask '.*' is float32; it must be one of int32"):
            select_input(outs, layers.cast(m, "float32"))
    got = _run(main, [y, x.grad_name], {"x": np.array([1.3, -1.4], "float32"), "mask": np.array([mask], "int32")})
    np.testing.assert_allclose(got[0], [1.3, -1.4])
    np.testing.assert_allclose(got[1], [0.5, 0.5])


def test_layers_data_leaves_a_feed_unchecked_as_fluid_does_but_fluid_data_checks_it():
    from pe_cli.base.errors import FeedError

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        loose = layers.data(name="loose", shape=[2], dtype="float32")
        strict = fluid.data(name="strict", shape=[None, 2], dtype="float32")
    (got,) = _run(main, [loose], {"loose": np.ones([2], "float32")})
    assert got.shape == (2,)
    # more dims than declared (fewer fit: tests/executor/test_feed_shapes.py)
    with pytest.raises(FeedError, match=r"feed 'strict': expected shape \[-1, 2\] \(-1 is any size\), got \[2, 2, 1\]"):
        _run(main, [strict], {"strict": np.ones([2, 2, 1], "float32")})


def test_cond_branches_return_nested_structures_and_differing_dims_become_unknown():
    """Paddle 2.x's cond: a dict (or nested lists) from each branch; a dim the branches disagree on
    is -1 in the result; branches of different counts say how many each returns."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[1], dtype="float32")
        pred = layers.less_than(x, layers.fill_constant([1], "float32", 0.0))
        out = layers.cond(
            pred,
            lambda: {"a": layers.fill_constant([3, 2], "int32", 1), "b": [x]},
            lambda: {"a": layers.fill_constant([3, 4], "int32", 3), "b": [layers.scale(x, 2.0)]},
        )
        assert sorted(out) == ["a", "b"] and out["a"].shape == (3, -1) and isinstance(out["b"], list)
        with pytest.raises(ValueError, match="true fn returns 1 vars, but false fn returns 2 vars"):
            layers.cond(pred, lambda: x, lambda: [x, x])
    a, b = _run(main, [out["a"], out["b"][0]], {"x": np.array([1.5], "float32")})
    np.testing.assert_array_equal(a, np.full((3, 4), 3))
    np.testing.assert_allclose(b, [3.0])
