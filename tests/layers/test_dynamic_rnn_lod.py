"""DynamicRNN over nested sequences and with sequence static inputs, as Fluid's: a 2-level input
steps over its top level (each step a sequence with its LoD); a static input with LoD gives each
running sequence its own sub-sequence; outputs and gradients carry the LoD Fluid gives them
(Fluid 1.8's test_dyn_rnn nested cases and test_dynrnn_static_input)."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import core, layers


def _tensor(values, lengths):
    t = core.LoDTensor()
    t.set(np.asarray(values, dtype="float32"), fluid.CPUPlace())
    t.set_recursive_sequence_lengths(lengths)
    return t


def _run(main, feed, fetch, place):
    exe = fluid.Executor(place)
    return exe.run(main, feed=feed, fetch_list=fetch, return_numpy=False, scope=core.Scope())


def check_nested(place):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[2], lod_level=2)
        x.stop_gradient = False
        drnn = layers.DynamicRNN()
        with drnn.block():
            sentence = drnn.step_input(x)
            assert sentence.lod_level == 1
            drnn.output(layers.sequence_pool(sentence, "sum") * 2.0, sentence * 1.0)
        pooled, words = drnn()
        fluid.backward.append_backward(layers.reduce_sum(pooled))
    values = np.arange(12, dtype="float32").reshape(6, 2)
    pooled, words, grad = _run(main, {"x": _tensor(values, [[2, 1], [2, 3, 1]])}, [pooled, words, "x@GRAD"], place)
    sentences = [values[0:2], values[2:5], values[5:6]]
    assert np.allclose(np.array(pooled), [2 * s.sum(0) for s in sentences])
    assert pooled.recursive_sequence_lengths() == [[2, 1]]
    assert np.array_equal(np.array(words), values) and words.recursive_sequence_lengths() == [[2, 1], [2, 3, 1]]
    assert np.allclose(np.array(grad), 2.0) and grad.recursive_sequence_lengths() == [[2, 1], [2, 3, 1]]


def check_static_input(place):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[1], lod_level=1)
        s = layers.data(name="s", shape=[1], lod_level=1)
        s.stop_gradient = False
        seen = main.global_block().create_var(name="seen", type=core.VarDesc.VarType.LOD_TENSOR_ARRAY, dtype="float32")
        drnn = layers.DynamicRNN()
        with drnn.block():
            drnn.step_input(x)
            own = drnn.static_input(s)
            layers.array_write(own, i=drnn.step_idx, array=seen)
            drnn.output(layers.sequence_pool(own, "sum"))
        out = drnn()
        second = layers.array_read(seen, layers.fill_constant([1], "int64", 1))
        fluid.backward.append_backward(layers.reduce_sum(out))
    statics = np.arange(6, dtype="float32").reshape(6, 1)
    feed = {"x": _tensor(np.zeros((6, 1)), [[2, 1, 3]]), "s": _tensor(statics, [[1, 2, 3]])}
    out, second, grad = _run(main, feed, [out, second, "s@GRAD"], place)
    sums = [0.0, 3.0, 12.0]  # the static sequences' sums, one per sequence of x
    assert np.array(out).ravel().tolist() == [sums[0]] * 2 + [sums[1]] + [sums[2]] * 3
    assert out.recursive_sequence_lengths() == [[2, 1, 3]]
    # step 1: the sequences still running, longest first (x's third, then its first)
    assert np.array(second).ravel().tolist() == [3, 4, 5, 0] and second.recursive_sequence_lengths() == [[3, 1]]
    assert np.array(grad).ravel().tolist() == [2, 1, 1, 3, 3, 3] and grad.recursive_sequence_lengths() == [[1, 2, 3]]


def test_a_two_level_input_steps_over_paragraphs_of_sentences():
    check_nested(fluid.CPUPlace())


def test_a_static_input_with_lod_gives_each_sequence_its_own_and_its_gradient_keeps_the_lod():
    check_static_input(fluid.CPUPlace())


def test_a_leaf_read_through_two_slots_of_one_op_sums_its_gradients():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = layers.data(name="x", shape=[1, 1, 1], append_batch_size=False)
        x.stop_gradient = False
        outer = layers.StaticRNN()
        with outer.step():
            x_t = outer.step_input(x)
            inner = layers.StaticRNN()
            with inner.step():
                inner.output(layers.scale(inner.step_input(x), 1.0))
            outer.output(layers.elementwise_add(x_t, layers.reduce_sum(inner())))
        fluid.backward.append_backward(layers.mean(outer()))
    exe = fluid.Executor(fluid.CPUPlace())
    (grad,) = exe.run(main, feed={"x": np.ones((1, 1, 1), "float32")}, fetch_list=["x@GRAD"], scope=core.Scope())
    assert grad.ravel().tolist() == [2.0]
