"""The rank-table ops, split/merge_lod_tensor and a scope's tensor arrays move LoD elements as
Fluid's do: a sequence of a LoD level goes with its rows and its own LoD (Fluid 1.8's
test_lod_tensor_array_ops, test_reorder_lod_tensor, test_split_and_merge_lod_tensor_op numbers)."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.fluid import core, layers
from pe_cli.fluid.op import Operator
from pe_cli.layers.control_flow import merge_lod_tensor, split_lod_tensor


def _tensor(values, lengths):
    t = core.LoDTensor()
    t.set(np.asarray(values), fluid.CPUPlace())
    t.set_recursive_sequence_lengths(lengths)
    return t


def _run(program, feed, fetch, place=fluid.CPUPlace()):
    return fluid.Executor(place).run(program, feed=feed, fetch_list=fetch, return_numpy=False, scope=core.Scope())


def test_a_declared_plain_variable_fed_sequences_is_ranked_and_cut_into_sequences(place=fluid.CPUPlace()):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[10])  # lod_level 0, [-1, 10]: the fed LoD counts
        table = layers.lod_rank_table(x, level=0)
        array = layers.lod_tensor_to_array(x, table)
        first = layers.array_read(array, layers.fill_constant([1], "int64", 1))
        back = layers.array_to_lod_tensor(array, table)
    tensor = _tensor(np.arange(20).reshape(20, 1).astype("int32"), [[2, 3], [3, 6, 2, 6, 3]])
    step1, restored = _run(main, {"x": tensor}, [first, back], place)
    assert np.array(step1).ravel().tolist() == list(range(11, 17)) + list(range(3, 9))
    assert step1.recursive_sequence_lengths() == [[6, 6]]
    assert np.array_equal(np.array(restored), np.arange(20).reshape(20, 1))
    assert restored.recursive_sequence_lengths() == [[2, 3], [3, 6, 2, 6, 3]]


def test_reorder_by_rank_moves_whole_sequences_and_the_gradient_keeps_the_lod(place=fluid.CPUPlace()):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[1], lod_level=2)
        x.stop_gradient = False
        ref = layers.data(name="ref", shape=[1], lod_level=1)
        out = layers.reorder_lod_tensor_by_rank(x, layers.lod_rank_table(ref))
        fluid.backward.append_backward(layers.reduce_sum(out))
    x_t = _tensor(np.arange(6, dtype="float32").reshape(6, 1), [[1, 2], [1, 2, 3]])
    ref_t = _tensor(np.zeros((3, 1), "float32"), [[1, 2]])  # the second sequence is longer
    out, grad = _run(main, {"x": x_t, "ref": ref_t}, [out, "x@GRAD"], place)
    assert np.array(out).ravel().tolist() == [1, 2, 3, 4, 5, 0]
    assert out.recursive_sequence_lengths() == [[2, 1], [2, 3, 1]]
    assert np.array_equal(np.array(grad), np.ones((6, 1))) and grad.recursive_sequence_lengths() == [[1, 2], [1, 2, 3]]


def test_split_and_merge_by_sequence_keep_the_lod(place=fluid.CPUPlace()):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[1])
        y = layers.data(name="y", shape=[1], dtype="bool")
        t, f = split_lod_tensor(input=x, mask=y, level=0)
        out = merge_lod_tensor(in_true=t, in_false=f, x=x, mask=y, level=0)
    tensor = _tensor(np.arange(10).reshape(10, 1).astype("float32"), [[3, 6, 1]])
    t, f, out = _run(main, {"x": tensor, "y": np.array([[False], [True], [False]])}, [t, f, out], place)
    assert np.array(t).ravel().tolist() == [3, 4, 5, 6, 7, 8] and t.recursive_sequence_lengths() == [[6]]
    assert np.array(f).ravel().tolist() == [0, 1, 2, 9] and f.recursive_sequence_lengths() == [[3, 1]]
    assert np.array_equal(np.array(out), np.array(tensor)) and out.recursive_sequence_lengths() == [[3, 6, 1]]
    with pytest.raises(
        TypeError, match=r"fluid\.layers\.split_lod_tensor: input must be Variable\|list\|tuple\|NoneType, got set"
    ):
        split_lod_tensor(input=set(), mask=y)


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda x, t: layers.lod_tensor_to_array(np.zeros(3), t),
            r"lod_tensor_to_array: x must be Variable\|list, got ndarray",
        ),
        (
            lambda x, t: layers.reorder_lod_tensor_by_rank(x, x),
            "reorder_lod_tensor_by_rank: the type of rank_table should be LOD_RANK_TABLE, 'x' is a lod_tensor",
        ),
        (lambda x, t: layers.shrink_memory(x, 0, t), "shrink_memory: i must be Variable, got int"),
        (
            lambda x, t: layers.array_length(x),
            "array_length: array must be a tensor array variable, got Variable 'x' of type lod_tensor",
        ),
    ],
)
def test_fluid_type_errors(build, message):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = layers.data(name="x", shape=[1], lod_level=1)
        with pytest.raises(TypeError, match=message):
            build(x, layers.lod_rank_table(x))


def test_a_scope_tensor_array_filled_by_hand_feeds_an_op_and_keeps_each_lod():
    scope = core.Scope()
    array = scope.var("arr").get_lod_tensor_array()
    for i in range(3):
        array.append(_tensor(np.full((i + 1, 1), i, "float32"), [[i + 1]]))
    assert len(array) == 3 and array[2].recursive_sequence_lengths() == [[3]]
    array[0] = _tensor(np.array([[7.0]], "float32"), [[1]])
    assert np.array(array[0]).tolist() == [[7.0]]

    Operator("lod_array_length", X="arr", Out="n").run(scope, fluid.CPUPlace())
    assert np.array(scope.find_var("n").get_tensor()).tolist() == [3]


def test_rnn_memory_helper_grad_without_a_gradient_is_zeros():
    main = fluid.Program()
    block = main.global_block()
    x = block.create_var(name="X", shape=[2, 3], dtype="float32")
    out = block.create_var(name="Out", shape=[2, 3], dtype="float32")
    stray = fluid.Program().global_block().create_var(name="Out@GRAD", shape=[2, 3], dtype="float32")
    grad = block.create_var(name="X@GRAD", shape=[2, 3], dtype="float32")
    block.append_op(
        type="rnn_memory_helper_grad", inputs={"X": x, "Out": out, "Out@GRAD": stray}, outputs={"X@GRAD": grad}
    )
    ones = np.ones((2, 3), "float32")
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"X": ones, "Out": ones}, fetch_list=[grad])
    assert np.array_equal(got, np.zeros((2, 3)))
