"""Fluid 1.8's while_loop as its unittests use it: dicts and lists among the loop variables (the body
changes copies), Fluid's TypeError / ValueError for bad arguments, and Fluid's gradient of a loop
whose body overwrites an outer variable (that output's gradient reaches every iteration)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid.backward import append_backward

layers = fluid.layers


def _run(main, fetch, feed=None):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_dicts_and_lists_among_loop_variables_keep_the_outer_variables():
    def body(i, ten, d, lst):
        d["k"] = d["k"] + i
        lst[0] = lst[0] + 1
        return [layers.increment(i), ten, d, lst]

    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        i = layers.zeros(shape=[1], dtype="int64")
        ten = layers.fill_constant(shape=[1], dtype="int64", value=10)
        d, lst = {"k": layers.fill_constant([1], "int64", 0)}, [layers.fill_constant([1, 2], "int64", 0)]
        i, ten, d, lst = layers.while_loop(lambda i, ten, d, lst: layers.less_than(i, ten), body, [i, ten, d, lst])
    got = _run(main, [d["k"], lst[0]])
    assert got[0][0] == 45
    np.testing.assert_array_equal(got[1], [[10, 10]])


def test_bad_arguments_raise_fluids_errors():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        i = layers.zeros(shape=[1], dtype="int64")
        with pytest.raises(TypeError, match="cond in while_loop should be callable"):
            layers.while_loop(i, lambda i: i, [i])
        with pytest.raises(
            TypeError,
            match=r"fluid\.layers\.while_loop: var of cond returned 'fill_constant_\d+\.tmp_\d+' is int64; it must be one of bool",
        ):
            layers.while_loop(lambda i: i, lambda i: i, [i])  # cond returns an int64
        with pytest.raises(TypeError, match=r"fluid\.layers\.while_loop: loop_vars must be list\|tuple, got Variable"):
            layers.while_loop(lambda i: layers.less_than(i, i), lambda i: i, i)
        with pytest.raises(ValueError, match="loop_vars in while_loop should not be empty"):
            layers.while_loop(lambda i: layers.less_than(i, i), lambda i: i, [])
        with pytest.raises(
            ValueError,
            match=r"body in while_loop should return the same arity \(length and structure\) as loop_vars: 2 values for 1",
        ):
            layers.while_loop(lambda i: layers.less_than(i, i), lambda i: [i, i], [i])


def test_an_overwritten_output_passes_its_gradient_to_every_iteration_as_in_fluid():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        i = fluid.data(name="i", shape=[1], dtype="float32")
        i.stop_gradient = False
        x = fluid.data(name="x", shape=[1], dtype="float32")
        x.stop_gradient = False
        eleven = layers.fill_constant(shape=[1], dtype="float32", value=11)

        def body(i, x):
            x = i * i
            return [layers.increment(i), x]

        out = layers.while_loop(lambda i, x: layers.less_than(i, eleven), body, [i, x])
        mean = layers.mean(out[1])
        append_backward(mean)
    got = _run(main, [mean, i.grad_name], {"i": np.ones(1, "float32"), "x": np.ones(1, "float32")})
    assert got[0][0] == 100.0 and got[1][0] == 110.0  # Fluid 1.8.5 gives 110: 2 * (1 + 2 + ... + 10)
