"""``var[item]`` as Fluid 1.8's Variable.__getitem__: ints drop their dim, slices (with steps) slice,
``::-1`` reverses; values equal numpy's indexing, gradients flow back to the picked elements only."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

X = np.arange(3 * 4 * 5, dtype="float32").reshape(3, 4, 5)
CASES = [
    (lambda v: v[:, 1], (-1, 5)),
    (lambda v: v[0, 1, 2], (1,)),
    (lambda v: v[:, 1:3, ::2], (-1, 2, 3)),
    (lambda v: v[:, ::-1], (-1, 4, 5)),
    (lambda v: v[-1], (4, 5)),
    (lambda v: v[1:, -2:], (-1, 2, 5)),
]


def test_indexing_a_variable_equals_numpys_and_its_gradient_reaches_the_picked_elements():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4, 5], "float32")
        x.stop_gradient = False
        outs = [pick(x) for pick, _ in CASES]
        assert [tuple(o.shape) for o in outs] == [shape for _, shape in CASES]
        loss = fluid.layers.reduce_sum(outs[2])
        (grad,) = fluid.gradients(loss, [x])
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    *values, g = exe.run(main, feed={"x": X}, fetch_list=outs + [grad])
    expected = [X[:, 1], X[0, 1, 2].reshape(1), X[:, 1:3, ::2], X[:, ::-1], X[-1], X[1:, -2:]]
    for got, want in zip(values, expected):
        np.testing.assert_array_equal(got, want)
    want_grad = np.zeros_like(X)
    want_grad[:, 1:3, ::2] = 1
    np.testing.assert_array_equal(g, want_grad)


def test_an_index_held_in_a_variable_is_read_when_the_program_runs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4, 5], "float32")
        i = fluid.layers.fill_constant([1], "int32", 1)
        picked = x[i]  # a one-value index picks in Fluid 1.8's programs (Paddle 2.x's gather: [1, 4, 5])
        with pytest.raises(TypeError, match="item assignment"):
            x[0] = 1.0
    assert list(picked.shape) == [4, 5]
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": X}, fetch_list=[picked])
    np.testing.assert_array_equal(np.asarray(got).reshape(4, 5), X[1])


def test_an_int_past_a_known_dim_is_an_index_error_so_unpacking_stops_and_arrays_read_their_items():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [3, 4], "float32")
        rows = list(x)  # iteration stops at the IndexError of x[3]
        a, b = fluid.data("y", [2], "float32")
        arr = fluid.layers.create_array("float32")
        for k in range(2):
            fluid.layers.array_write(
                fluid.layers.fill_constant([2], "float32", k + 1.0), fluid.layers.fill_constant([1], "int64", k), arr
            )
        second = arr[1]
    assert len(rows) == 3 and a is not None and b is not None
    try:
        x[0, 4]
        raise AssertionError("x[0, 4] should raise IndexError")
    except IndexError as e:
        assert "dim 1" in str(e)
    got_rows = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": X[:3, :4, 0], "y": np.ones(2, "float32")}, fetch_list=rows + [second]
    )
    for k in range(3):
        np.testing.assert_array_equal(got_rows[k], X[k, :4, 0])
    np.testing.assert_array_equal(got_rows[3], [2.0, 2.0])
