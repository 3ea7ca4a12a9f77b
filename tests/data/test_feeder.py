"""fluid.DataFeeder as the Fluid 1.3 docs describe it: feed, feed_parallel, decorate_reader."""

import numpy as np
import pytest

import pe_cli.fluid as fluid


@pytest.fixture
def program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        image = fluid.layers.data("image", [2, 2])
        label = fluid.layers.data("label", [1], dtype="int64")
        words = fluid.layers.data("words", [1], dtype="int64", lod_level=1)
        hidden = fluid.layers.fc(image, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(hidden, label))
    return main, startup, image, label, words, loss


def samples(n):
    return [(np.full((2, 2), i, "float32"), [i % 3]) for i in range(n)]


def test_feed_converts_a_minibatch(program):
    main, _, image, label, _, _ = program
    feeder = fluid.DataFeeder([image, "label"], fluid.CPUPlace(), program=main)
    feed = feeder.feed(samples(4))
    assert set(feed) == {"image", "label"}
    assert all(isinstance(t, fluid.LoDTensor) for t in feed.values())  # as Fluid's feed() returns
    assert feed["image"].shape() == [4, 2, 2] and np.array(feed["image"]).dtype == np.float32
    assert feed["label"].shape() == [4, 1] and np.array(feed["label"]).dtype == np.int64
    assert feed["image"].recursive_sequence_lengths() == []
    flat = feeder.feed([(list(range(4)), 1)])  # flat fields are reshaped to the variable's shape
    assert flat["image"].shape() == [1, 2, 2]


def test_feed_runs_in_an_executor(program):
    main, startup, image, label, _, loss = program
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        feeder = fluid.DataFeeder([image, label], fluid.CPUPlace(), program=main)
        (out,) = exe.run(main, feed=feeder.feed(samples(5)), fetch_list=[loss])
    assert np.isfinite(out).all()


def test_lod_fields_become_lod_tensors(program):
    main, *_ = program
    feeder = fluid.DataFeeder(["words", "label"], fluid.CPUPlace(), program=main)
    feed = feeder.feed([([1, 2, 3], [0]), ([4, 5], [1])])
    words = feed["words"]
    assert isinstance(words, fluid.LoDTensor)
    assert words.recursive_sequence_lengths() == [[3, 2]]
    assert np.array(words).reshape(-1).tolist() == [1, 2, 3, 4, 5]


def test_errors(program):
    main, _, image, *_ = program
    with pytest.raises(ValueError, match="no variable named 'nope' in block 0"):
        fluid.DataFeeder(["nope"], fluid.CPUPlace(), program=main)
    with pytest.raises(TypeError, match="DataFeeder: feed_list takes Variables or their names, got int"):
        fluid.DataFeeder([3], fluid.CPUPlace(), program=main)
    other = fluid.Program()
    with fluid.program_guard(other, fluid.Program()):
        stranger = fluid.layers.data("stranger", [1])
    with pytest.raises(ValueError, match="DataFeeder: variable 'stranger' is not in the program"):
        fluid.DataFeeder([stranger], fluid.CPUPlace(), program=main)
    feeder = fluid.DataFeeder([image, "label"], fluid.CPUPlace(), program=main)
    with pytest.raises(ValueError, match="has 1 fields but feed_list has 2"):
        feeder.feed([(np.zeros((2, 2)),)])


def test_variables_of_a_non_default_program_need_no_program_argument():
    other = fluid.Program()
    with fluid.program_guard(other, fluid.Program()):
        x = fluid.layers.data("x", [3])
    feed = fluid.DataFeeder([x], fluid.CPUPlace()).feed([([1, 2, 3],), ([4, 5, 6],)])
    assert np.array(feed["x"]).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_feed_parallel_one_minibatch_per_device(program):
    main, _, image, label, *_ = program
    feeder = fluid.DataFeeder([image, label], fluid.CPUPlace(), program=main)
    feeds = list(feeder.feed_parallel([samples(2), samples(3)], num_places=2))
    assert [f["image"].shape()[0] for f in feeds] == [2, 3]
    with pytest.raises(ValueError, match="one minibatch per device"):
        list(feeder.feed_parallel([samples(2)], num_places=2))


def test_decorate_reader(program, monkeypatch):
    main, _, image, label, *_ = program
    feeder = fluid.DataFeeder([image, label], fluid.CPUPlace(), program=main)

    def reader():
        return iter([samples(2), samples(2), samples(2)])

    single = list(feeder.decorate_reader(reader, multi_devices=False)())
    assert len(single) == 3 and isinstance(single[0], dict)
    multi = list(feeder.decorate_reader(reader, multi_devices=True, num_places=2)())
    assert len(multi) == 1 and isinstance(multi[0], list) and len(multi[0]) == 2  # the odd one is dropped
    with pytest.raises(ValueError, match="left over"):
        list(feeder.decorate_reader(reader, multi_devices=True, num_places=2, drop_last=False)())
    monkeypatch.setenv("CPU_NUM", "3")
    by_env = list(feeder.decorate_reader(reader, multi_devices=True)())
    assert len(by_env) == 1 and len(by_env[0]) == 3


def test_a_sequence_variable_of_shape_minus_one_gets_its_ids_in_one_dimension():
    """Fluid's converter gives the values the variable's rank: fluid.data(shape=[None], lod_level=1) takes
    [N] (Paddle's book sentiment programs), fluid.layers.data(shape=[1], lod_level=1) takes [N, 1]."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        flat = fluid.data("flat", [None], dtype="int64", lod_level=1)
        column = fluid.layers.data("column", [1], dtype="int64", lod_level=1)
    feed = fluid.DataFeeder([flat, column], fluid.CPUPlace(), program=main).feed([([1, 2, 3], [4, 5]), ([6], [7])])
    assert feed["flat"].shape() == [4] and feed["flat"].recursive_sequence_lengths() == [[3, 1]]
    assert feed["column"].shape() == [3, 1] and feed["column"].recursive_sequence_lengths() == [[2, 1]]


def test_variables_declared_with_a_fixed_batch_are_fed_as_fluid_feeds_them():
    """Measured on Fluid 1.8.5 (its DataToLoDTensorConverter): a variable of fixed shape takes a
    DataFeeder; the fields are reshaped to the declared shape where the ranks differ and left as they
    are where they agree (two samples for a [3, 4] layers.data variable: [2, 4], which it runs);
    a variable with two unknown dims is never reshaped; [4, 1] samples fill a [-1, 4] variable."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fixed = fluid.layers.data("fixed", [3, 4], dtype="float32", append_batch_size=False)
        column = fluid.data("column", [3, 1], dtype="int64")
        rows = fluid.layers.data("rows", [4], dtype="float32")
        free = fluid.layers.data("free", [-1, -1], dtype="float32", append_batch_size=False)
        total = fluid.layers.reduce_sum(fixed) + fluid.layers.reduce_sum(rows)
    feeder = fluid.DataFeeder([fixed, column, rows, free], fluid.CPUPlace())

    def shapes(feed):
        return [feed[n].shape() for n in ("fixed", "column", "rows", "free")]

    three = feeder.feed([(np.ones([2, 2]), [1], np.ones([4, 1]), np.ones([2, 2]))] * 3)
    assert shapes(three) == [[3, 4], [3, 1], [3, 4], [3, 2, 2]]
    two = feeder.feed([(np.ones(4), [1], np.ones(4), np.ones(3))] * 2)
    assert shapes(two) == [[2, 4], [2, 1], [2, 4], [2, 3]]
    exe = fluid.Executor(fluid.CPUPlace())
    (got,) = exe.run(main, feed={k: two[k] for k in ("fixed", "rows")}, fetch_list=[total])
    assert float(got[0]) == 16.0
