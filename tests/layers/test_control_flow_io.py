"""Inference models keep control flow: save_inference_model stores the sub-blocks, and the loaded
program (a StaticRNN, then a While) computes what the original computes, with the training ops
pruned."""

import numpy as np

from pe_cli import fluid
from pe_cli.fluid import layers


def _save_and_load(tmp_path, main, test, startup, feed, target):
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.core.Scope()):
        exe.run(startup)
        exe.run(main, feed=feed, fetch_list=[target])  # one training step
        fluid.io.save_inference_model(str(tmp_path), list(feed), [target], exe, main_program=main)
        (want,) = exe.run(test, feed=feed, fetch_list=[target])
    with fluid.scope_guard(fluid.core.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
        (got,) = exe.run(program, feed=feed, fetch_list=fetches)
    assert program.num_blocks > 1 and sorted(feeds) == sorted(feed)
    np.testing.assert_array_equal(got, want)


def test_static_rnn_and_while_survive_save_and_load(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = layers.data("x", [4, 3], dtype="float32")  # [batch, T, D]
        seq = layers.transpose(x, [1, 0, 2])
        rnn = layers.StaticRNN()
        with rnn.step():
            xt = rnn.step_input(seq)
            prev = rnn.memory(shape=[-1, 5], batch_ref=xt)
            h = layers.fc([xt, prev], 5, act="tanh")
            rnn.update_memory(prev, h)
            rnn.step_output(h)
        hs = rnn()
        i, n = layers.fill_constant([1], "int64", 0), layers.fill_constant([1], "int64", 3)
        acc = layers.reduce_sum(hs, dim=0)
        c = layers.less_than(i, n)
        loop = layers.While(c)
        with loop.block():
            layers.assign(layers.fc(acc, 5, act="tanh", name="loop_fc"), acc)
            layers.increment(i)
            layers.less_than(i, n, cond=c)
        loss = layers.mean(acc)
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(0.1).minimize(loss)  # training ops are pruned
    feed = {"x": np.random.default_rng(0).normal(size=(2, 4, 3)).astype("float32")}
    _save_and_load(tmp_path, main, test, startup, feed, acc)
