"""A dynamic RNN written with While as Fluid's test_dyn_rnn does (lod_rank_table, lod_tensor_to_array,
shrink_memory, array_to_lod_tensor, reorder_lod_tensor_by_rank) equals DynamicRNN: the outputs, their
LoD and every gradient."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import layers
from tests.layers.test_control_flow_dynamic_rnn import H, LENGTHS, PARAMS, VALUES, data
from tests.layers.test_control_flow_dynamic_rnn import program as dynamic_rnn_program


def while_rnn_program():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x, h0, s = data()
        table = layers.lod_rank_table(x)
        steps = layers.lod_tensor_to_array(x, table)
        n = layers.max_sequence_len(table)
        i = layers.fill_constant([1], "int64", 0)
        memories = layers.array_write(layers.reorder_lod_tensor_by_rank(h0, table), i)
        statics = layers.reorder_lod_tensor_by_rank(s, table)
        outs = layers.create_array("float64")
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            xt = layers.array_read(steps, i)
            prev = layers.shrink_memory(layers.array_read(memories, i), i, table)
            st = layers.shrink_memory(statics, i, table)
            h = layers.fc(
                [xt, prev, st],
                H,
                act="tanh",
                bias_attr=fluid.ParamAttr("b"),
                param_attr=[fluid.ParamAttr("wx"), fluid.ParamAttr("wh"), fluid.ParamAttr("ws")],
            )
            layers.array_write(h, i, outs)
            layers.increment(i)
            layers.array_write(h, i, memories)
            layers.less_than(i, n, cond=c)
        out = layers.array_to_lod_tensor(outs, table)
        loss = layers.reduce_sum(out * out) * 0.5
        fluid.backward.append_backward(loss)
    return main, out


def _run(main, fetch):
    scope = fluid.core.Scope()
    for name in PARAMS:
        scope.var(name).get_tensor().set(VALUES[name], fluid.CPUPlace())
    feed = {
        "x": fluid.create_lod_tensor(VALUES["x"], [LENGTHS], fluid.CPUPlace()),
        "h0": VALUES["h0"],
        "s": VALUES["s"],
    }
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, return_numpy=False)


def test_while_rnn_equals_dynamic_rnn():
    grads = [n + "@GRAD" for n in ["x", "h0", "s"] + list(PARAMS)]
    main, out = while_rnn_program()
    ref, ref_out, _ = dynamic_rnn_program()
    got, want = _run(main, [out] + grads), _run(ref, [ref_out] + grads)
    assert got[0].recursive_sequence_lengths() == [LENGTHS]
    for name, g, w in zip(["out"] + grads, got, want):
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-10, atol=1e-12, err_msg=name)
