"""Feeds in the forms Fluid scripts give them: a reader field holding a whole batch (Fluid's
converter reshapes it to the variable's shape), a LoDTensor of another dtype or with a LoD the
variable was not declared with (Fluid runs it as it is: pe casts it to the declared dtype), and
sequence_unpad of a 2-D tensor ([N, 1], as Fluid's)."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import FeedError
from pe_cli.fluid import core, layers


def test_a_field_holding_the_whole_batch_takes_the_variables_shape():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        lens = fluid.data(name="lens", shape=[None], dtype="int64")
        rows = fluid.data(name="rows", shape=[None, 4], dtype="float32")
        feeder = fluid.DataFeeder(feed_list=[lens], place=fluid.CPUPlace())
        rows_feeder = fluid.DataFeeder(feed_list=[rows], place=fluid.CPUPlace())
    fed = feeder.feed([[[16] * 32]])  # one "sample": the 32 lengths of a batch
    assert np.array(fed["lens"]).shape == (32,)
    fed = rows_feeder.feed([[np.zeros(6)]])  # same rank, other size: as it is (Fluid's converter)
    assert np.array(fed["rows"]).shape == (1, 6)
    with pytest.raises(
        ValueError, match="'rows' is declared \\[-1, 4\\] but its batch of fields has shape \\[1, 5, 1\\]"
    ):
        rows_feeder.feed([[np.zeros((5, 1))]])  # another rank that the declared shape cannot take


def test_a_feed_is_cast_to_the_declared_dtype_and_fluid_data_refuses_another():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[3])
        total = layers.reduce_sum(x)
    other = fluid.Program()
    with fluid.program_guard(other, fluid.Program()):
        checked = layers.reduce_sum(fluid.data(name="c", shape=[None, 3]))
    tensor = core.LoDTensor()
    tensor.set(np.ones((2, 1), "float64"), fluid.CPUPlace())  # LoD and shape not as declared
    tensor.set_recursive_sequence_lengths([[1, 1]])
    exe = fluid.Executor(fluid.CPUPlace())
    (got,) = exe.run(main, feed={"x": tensor}, fetch_list=[total], scope=core.Scope())
    assert got.dtype == np.float32 and float(got) == 2.0
    (got,) = exe.run(main, feed={"x": np.ones((2, 3), "float64")}, fetch_list=[total], scope=core.Scope())
    assert got.dtype == np.float32 and float(got) == 6.0
    with pytest.raises(FeedError, match="expected dtype float32, got float64"):
        exe.run(other, feed={"c": np.ones((2, 3), "float64")}, fetch_list=[checked], scope=core.Scope())


def test_sequence_unpad_of_a_2d_tensor_gives_one_column():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data(name="x", shape=[None, 4], dtype="float32")
        n = fluid.data(name="n", shape=[None], dtype="int64")
        out = layers.sequence_unpad(x, n)
    assert tuple(out.shape) == (-1, 1)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(
        main,
        feed={"x": np.arange(8, dtype="float32").reshape(2, 4), "n": np.array([1, 3])},
        fetch_list=[out],
        return_numpy=False,
        scope=core.Scope(),
    )
    assert np.array(got).tolist() == [[0.0], [4.0], [5.0], [6.0]] and got.recursive_sequence_lengths() == [[1, 3]]
