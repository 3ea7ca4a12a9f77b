"""LoD flows through the graph: the registry's rule per op carries the offsets from a feed through
fc, activations and sequence ops; fetches return LoDTensor with its LoD; a bad LoD or a plain
tensor given to a sequence op is one clear error; 2 CPU devices split a LoD feed by whole
sequences and end where 1 device ends."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

VOCAB, EMB = 20, 6


def _net(lr=0.2):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup):
        words = fluid.layers.data("words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data("label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(words, size=[VOCAB, EMB])
        hidden = fluid.layers.fc(emb, 8, act="tanh")
        pooled = fluid.layers.sequence_pool(hidden, "max")
        logits = fluid.layers.fc(pooled, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.SGD(lr).minimize(loss)
    return main, startup, loss, hidden, pooled


def _batch(seed, n=8):
    rng = np.random.default_rng(seed)
    lengths = [int(v) for v in rng.integers(1, 6, size=n)]
    ids = rng.integers(0, VOCAB, size=(sum(lengths), 1)).astype("int64")
    words = fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace())
    return {"words": words, "label": rng.integers(0, 3, size=(n, 1)).astype("int64")}


def test_lod_follows_fc_and_is_ended_by_pooling():
    main, startup, loss, hidden, pooled = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    feed = _batch(0)
    h, p = exe.run(main, feed=feed, fetch_list=[hidden, pooled], scope=scope, return_numpy=False)
    assert h.lod() == feed["words"].lod() and p.lod() == []
    assert hidden.lod_level == 1 and pooled.lod_level == 0
    assert np.array(p).shape == (8, 8)


def test_two_level_lod_keeps_the_upper_level():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", shape=[2], dtype="float32", lod_level=2)
        out = fluid.layers.sequence_pool(x, "sum")
    t = fluid.create_lod_tensor(np.ones((6, 2), "float32"), [[2, 1], [1, 2, 3]], fluid.CPUPlace())
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": t}, fetch_list=[out], return_numpy=False)
    assert got.lod() == [[0, 2, 3]] and out.lod_level == 1
    np.testing.assert_array_equal(np.array(got)[:, 0], [1, 2, 3])


@pytest.mark.parametrize(
    "lod, message",
    [
        ([[0, 3, 2, 5]], "ascending offsets"),
        ([[0, 2, 4]], "lengths [2, 2] do not sum to 5"),
    ],
)
def test_a_lod_that_does_not_fit_the_data_is_named(lod, message):
    main, startup, loss, *_ = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=fluid.Scope())
    bad = fluid.LoDTensor(np.zeros((5, 1), "int64"), lod)
    with pytest.raises(PeError, match=r"feed 'words'.*" + __import__("re").escape(message)):
        exe.run(main, feed={"words": bad, "label": np.zeros((2, 1), "int64")}, fetch_list=[loss])


def test_split_and_unbind_share_the_lod_as_fluid():
    """Fluid's split gives every part X's LoD unless it cuts along dim 0; unbind gives each slice it (ShareLoD)."""
    from pe_cli import paddle

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [4], lod_level=1)
        across = fluid.layers.split(x, 2, dim=1)
        down = fluid.layers.split(x, [1, 4], dim=0)
        slices = paddle.unbind(x, axis=1)
    rows = fluid.create_lod_tensor(np.arange(20, dtype=np.float32).reshape(5, 4), [[2, 3]], fluid.CPUPlace())
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": rows}, fetch_list=[*across, *down, *slices], return_numpy=False
    )
    assert [t.lod() for t in got] == [[[0, 2, 5]]] * 2 + [[]] * 2 + [[[0, 2, 5]]] * 4


def test_a_sequence_op_given_a_plain_tensor_is_one_error():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("plain", shape=[3], dtype="float32")
        with pytest.raises(PeError, match=r"sequence_pool.*'plain' is a plain tensor"):
            fluid.layers.sequence_pool(x, "sum")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("seq", shape=[3], dtype="float32", lod_level=1)
        out = fluid.layers.sequence_pool(x, "sum")
    with pytest.raises(PeError, match=r"sequence_pool.*input X has no LoD"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed={"seq": np.ones((4, 3), "float32")}, fetch_list=[out])


def _train(devices, steps=6):
    main, startup, loss, *_ = _net()
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = (
        main
        if devices == 1
        else fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * devices)
    )
    for step in range(steps):
        exe.run(program, feed=_batch(step + 1), fetch_list=[loss], scope=scope)
    return [np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()]


def test_two_devices_split_sequences_whole_and_match_one():
    one, two = _train(1), _train(2)
    assert len(one) == 5
    for i, (a, b) in enumerate(zip(one, two)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=f"parameter #{i}")


def test_parallel_fetch_merges_the_devices_lod():
    main, startup, loss, hidden, _ = _net()
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * 2)
    feed = _batch(3)
    (h,) = exe.run(program, feed=feed, fetch_list=[hidden], scope=scope, return_numpy=False)
    assert h.lod() == feed["words"].lod()


def test_sequence_layers_round_trip():
    """pad then unpad gives the sequences back with their LoD; reverse twice is the identity."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", shape=[2], dtype="float32", lod_level=1)
        pad = fluid.layers.fill_constant([1], "float32", 0.0)
        padded, length = fluid.layers.sequence_pad(x, pad)
        back = fluid.layers.sequence_unpad(padded, length)
        twice = fluid.layers.sequence_reverse(fluid.layers.sequence_reverse(x))
        mask = fluid.layers.sequence_mask(length, dtype="float32")
    t = fluid.create_lod_tensor(np.arange(12, dtype="float32").reshape(6, 2), [[1, 3, 2]], fluid.CPUPlace())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    p, b, w, m = exe.run(main, feed={"x": t}, fetch_list=[padded, back, twice, mask], return_numpy=False)
    assert np.array(p).shape == (3, 3, 2)
    assert b.lod() == t.lod() and w.lod() == t.lod()
    np.testing.assert_array_equal(np.array(b), np.array(t))
    np.testing.assert_array_equal(np.array(w), np.array(t))
    np.testing.assert_array_equal(np.array(m), [[1, 0, 0], [1, 1, 1], [1, 1, 0]])


def test_dynamic_lstm_classifier_learns_and_two_devices_match_one():
    """A dynamic_lstm + sequence_pool classifier: the loss falls over training, and 2 CPU devices
    (sequences split whole) end with the parameters of 1 device."""

    def run(devices):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 9
        with fluid.program_guard(main, startup):
            words = fluid.layers.data("words", shape=[1], dtype="int64", lod_level=1)
            label = fluid.layers.data("label", shape=[1], dtype="int64")
            emb = fluid.layers.embedding(words, size=[VOCAB, EMB])
            hidden, _ = fluid.layers.dynamic_lstm(fluid.layers.fc(emb, 4 * 5), size=4 * 5)
            logits = fluid.layers.fc(fluid.layers.sequence_pool(hidden, "last"), 3)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
            fluid.optimizer.Adam(0.05).minimize(loss)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        program = (
            main
            if devices == 1
            else fluid.CompiledProgram(main).with_data_parallel(
                loss_name=loss.name, places=[fluid.CPUPlace()] * devices
            )
        )
        feed = _batch(11)
        feed["label"] = (np.asarray(feed["words"])[np.array(feed["words"].lod()[0][:-1])] % 3).astype("int64")
        losses = [float(np.mean(exe.run(program, feed=feed, fetch_list=[loss], scope=scope)[0])) for _ in range(30)]
        return losses, [np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()]

    losses, one = run(1)
    assert losses[-1] < 0.3 * losses[0], losses
    _, two = run(2)
    for i, (a, b) in enumerate(zip(one, two)):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=f"parameter #{i}")
