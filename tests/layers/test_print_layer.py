"""fluid.layers.Print as Fluid 1.8 users call it: the value passes through unchanged, its text (the layout
of Fluid 1.8's print op) goes to standard output when the program runs, in the phases asked for and at
most first_n times; wrong arguments are Fluid's TypeError / ValueError."""

import re

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def test_print_writes_the_value_and_passes_it_and_its_gradient_through(prog, capsys):
    x = layers.data("x", [2, 3], dtype="float32", append_batch_size=False)
    x.stop_gradient = False
    y = layers.Print(x, message="hello", summarize=4)
    z = layers.Print(y * 2.0, print_phase="backward", print_tensor_lod=False)
    fluid.backward.append_backward(layers.reduce_sum(z))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    feed = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
    got, grad = exe.run(prog, feed=feed, fetch_list=[y, "x@GRAD"], scope=scope)
    np.testing.assert_array_equal(got, feed["x"])
    np.testing.assert_array_equal(grad, np.full((2, 3), 2.0))
    text = capsys.readouterr().out
    assert re.search(
        r"^\d+\thello\tThe place is:CPUPlace\nTensor\[x\]\n\tshape: \[2,3,\]\n\tdtype: f\n"
        r"\tdata: 0,1,2,3,\n",
        text,
        re.M,
    )
    # the second Print prints only its gradient (ones), named after it; the first prints the gradient too
    assert re.search(
        r"\t\tThe place is:CPUPlace\nTensor\[\S+@GRAD\]\n\tshape: \[2,3,\]\n\tdtype: f\n"
        r"\tdata: 1,1,1,1,1,1,\n",
        text,
    )
    assert text.count("\tdata: 2,2,2,2,\n") == 1 and text.count("The place is:") == 3


def test_print_first_n_counts_the_runs(prog, capsys):
    x = layers.data("x", [2], dtype="int64", append_batch_size=False)
    layers.Print(x, first_n=2, print_tensor_name=False, print_tensor_type=False)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    for _ in range(3):
        exe.run(prog, feed={"x": np.array([7, 8], dtype=np.int64)}, scope=scope)
    text = capsys.readouterr().out
    assert text.count("\tdata: 7,8,\n") == 2 and "Tensor[" not in text and "dtype" not in text


def test_print_shows_the_lod(prog, capsys):
    seq = layers.data("seq", [1], dtype="float32", lod_level=1)
    layers.Print(seq, summarize=-1)
    feed = {"seq": fluid.create_lod_tensor(np.arange(3, dtype=np.float32).reshape(3, 1), [[1, 2]], fluid.CPUPlace())}
    fluid.Executor(fluid.CPUPlace()).run(prog, feed=feed, scope=fluid.Scope())
    assert "\tshape: [3,1,]\n\tdtype: f\n\tLoD: [[ 0,1,3, ]]\n\tdata: 0,1,2,\n" in capsys.readouterr().out


def test_print_refuses_what_fluid_refuses(prog):
    with pytest.raises(TypeError, match=r"fluid\.layers\.Print: input must be Variable, got ndarray"):
        layers.Print(np.zeros(3))
    with pytest.raises(
        TypeError,
        match=r"fluid\.layers\.Print: input 's' is int8; it must be one of float32, float64, int32, int64, bool",
    ):
        layers.Print(layers.data("s", [2], dtype="int8"))
    with pytest.raises(
        ValueError, match=r"fluid\.layers\.Print: print_phase='sideways' must be 'forward', 'backward' or 'both'"
    ):
        layers.Print(layers.data("f", [2]), print_phase="sideways")
