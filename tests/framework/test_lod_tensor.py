"""LoDTensor as the seeds describe it: lengths and offsets are two views of one thing."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError


def test_lengths_and_offsets():
    t = fluid.LoDTensor()
    t.set(np.arange(10, dtype="float32").reshape(5, 2), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[2, 3]])
    assert t.lod() == [[0, 2, 5]]
    assert t.recursive_sequence_lengths() == [[2, 3]]
    assert t.has_valid_recursive_sequence_lengths()
    np.testing.assert_array_equal(np.array(t), np.arange(10).reshape(5, 2))


def test_two_levels_from_the_seed_example():
    t = fluid.LoDTensor()
    t.set(np.zeros((7, 1), "float32"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[2, 1], [2, 2, 3]])
    assert t.lod() == [[0, 2, 3], [0, 2, 4, 7]]
    assert t.has_valid_recursive_sequence_lengths()


def test_invalid_lengths_raise_enforce_not_met_as_in_fluid():
    """Fluid's LoDTensor refuses lengths that cannot describe it, with core.EnforceNotMet; the
    tensor keeps its LoD. Without a value, only the levels' agreement is checked."""
    t = fluid.LoDTensor()
    t.set(np.zeros((7, 1), "float32"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[2, 1], [2, 2, 3]])
    for bad in ([[2, 2], [2, 2, 3]], [[2, 4]], [[8, -1]]):
        with pytest.raises(fluid.core.EnforceNotMet, match="not a valid LoD"):
            t.set_recursive_sequence_lengths(bad)
    assert t.recursive_sequence_lengths() == [[2, 1], [2, 2, 3]]
    empty = fluid.LoDTensor()
    empty.set_recursive_sequence_lengths([[2, 3]])
    with pytest.raises(
        fluid.core.EnforceNotMet,
        match=r"set_recursive_sequence_lengths: \[\[2, 2\], \[2, 2, 3\]\] is not a valid LoD for this tensor \(no rows\): level 0's",
    ):
        empty.set_recursive_sequence_lengths([[2, 2], [2, 2, 3]])


def test_set_lod_checks_offsets():
    t = fluid.LoDTensor()
    t.set_lod([[0, 2, 5]])
    assert t.recursive_sequence_lengths() == [[2, 3]]
    with pytest.raises(PeError, match="ascending offsets starting at 0"):
        t.set_lod([[1, 2]])


def test_create_lod_tensor_from_array_list_and_tensor():
    a = fluid.create_lod_tensor(np.arange(5).reshape(5, 1), [[2, 3]], fluid.CPUPlace())
    assert a.lod() == [[0, 2, 5]]
    b = fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[2, 3]], fluid.CPUPlace())
    np.testing.assert_array_equal(np.array(b), [[1], [2], [3], [4], [5]])
    assert np.array(b).dtype == np.int64
    c = fluid.create_lod_tensor(a, [[1, 4]], fluid.CPUPlace())
    assert c.recursive_sequence_lengths() == [[1, 4]]
    with pytest.raises(fluid.core.EnforceNotMet, match="5 rows"):
        fluid.create_lod_tensor(np.zeros((5, 1)), [[2, 2]], fluid.CPUPlace())


def test_random_int_lodtensor():
    t = fluid.create_random_int_lodtensor([[2, 3]], [1], fluid.CPUPlace(), low=0, high=9)
    assert np.array(t).shape == (5, 1)
    assert t.recursive_sequence_lengths() == [[2, 3]]
    assert 0 <= np.array(t).min() and np.array(t).max() <= 9


def test_fed_lod_is_returned_with_return_numpy_false():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        fluid.layers.data("words", [1], dtype="int64", lod_level=1)
    t = fluid.create_lod_tensor(np.arange(5).reshape(5, 1), [[2, 3]], fluid.CPUPlace())
    (out,) = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"words": t}, fetch_list=["words"], return_numpy=False, scope=fluid.Scope()
    )
    assert out.recursive_sequence_lengths() == [[2, 3]]


def test_str_is_fluids_tensor_text():
    """Fluid 1.8.5's str(LoDTensor) (C++'s operator<<), recorded on the oracle, which user programs
    parse (GT-ZhangAcer/Paddle_Example's easy06_stop_grad/demo.py reads a weight from its last line)."""
    t = fluid.LoDTensor()
    t.set(np.arange(6, dtype="int64").reshape(2, 3), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([[1, 1]])
    assert str(t) == "\tlod: {{0, 1, 2}}\n\tdim: 2, 3\n\tlayout: NCHW\n\tdtype: int64_t\n\tdata: [0 1 2 3 4 5]\n"
    t.set(np.array([0.1, 1e-7, 123456.7], "float64"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths([])
    assert str(t) == "\tlod: {}\n\tdim: 3\n\tlayout: NCHW\n\tdtype: double\n\tdata: [0.1 1e-07 123457]\n"
    t.set(np.array([[1.5]], "float32"), fluid.CPUPlace())
    assert str(t) == "\tlod: {}\n\tdim: 1, 1\n\tlayout: NCHW\n\tdtype: float\n\tdata: [1.5]\n"
