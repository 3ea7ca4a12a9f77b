"""fluid.layers.py_reader and its family as Fluid 1.8 scripts use them: epochs ended by
fluid.core.EOFException and restarted by reset(), one batch per device under data parallelism,
training through a reader equal to training through feed=, and one-line errors for a reader that
was never decorated, never started, started twice, or whose generator raised."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError, PeError

ROWS = [(np.full(3, i, "float32"), np.array([i], "int64")) for i in range(10)]


def sample_lists(size=4, rows=ROWS):
    def reader():
        for start in range(0, len(rows), size):
            yield rows[start : start + size]

    return reader


def _net(reader_kind="py_reader", **kw):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if reader_kind == "py_reader":
            reader = fluid.layers.py_reader(capacity=2, shapes=[(-1, 3), (-1, 1)], dtypes=["float32", "int64"], **kw)
        else:
            x = fluid.data(name="x", shape=[None, 3], dtype="float32")
            y = fluid.data(name="y", shape=[None, 1], dtype="int64")
            reader = fluid.layers.create_py_reader_by_data(capacity=2, feed_list=[x, y], **kw)
        x, y = fluid.layers.read_file(reader)
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        main.test_clone = main.clone(for_test=True)
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, reader, x, y, loss


def _epoch(exe, program, reader, fetch):
    reader.start()
    out = []
    try:
        while True:
            out.append(exe.run(program, fetch_list=fetch))
    except fluid.core.EOFException:
        reader.reset()
    return out


@pytest.mark.parametrize("kind", ["py_reader", "by_data"])
def test_eof_then_reset_gives_the_same_epoch_again(kind):
    main, startup, reader, x, y, _ = _net(kind)
    reader.decorate_sample_list_generator(sample_lists())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    first = _epoch(exe, main, reader, [x, y])
    second = _epoch(exe, main, reader, [x, y])
    assert [list(b[1].ravel()) for b in first] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    assert len(second) == 3


def test_reset_before_the_end_restarts_from_the_first_batch():
    main, startup, reader, x, y, _ = _net()
    reader.decorate_sample_list_generator(sample_lists(size=1))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    reader.start()
    assert [exe.run(main, fetch_list=[y])[0].item() for _ in range(3)] == [0, 1, 2]
    reader.reset()  # the thread is blocked on a full queue: reset stops it
    reader.start()
    assert exe.run(main, fetch_list=[y])[0].item() == 0
    reader.reset()


def test_eof_again_until_reset():
    main, startup, reader, x, y, _ = _net()
    reader.decorate_batch_generator(lambda: iter([[ROWS[0][0][None], ROWS[0][1][None]]]))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    reader.start()
    exe.run(main, fetch_list=[y])
    for _ in range(2):
        with pytest.raises(fluid.core.EOFException, match="reset"):
            exe.run(main, fetch_list=[y])


def test_training_through_the_reader_equals_training_through_feed():
    # (a feed of a reader's variables replaces its batch: the same program runs both ways)
    main, startup, reader, x, y, loss = _net()
    reader.decorate_sample_list_generator(sample_lists())
    exe = fluid.Executor(fluid.CPUPlace())
    scope_r, scope_f = fluid.Scope(), fluid.Scope()
    exe.run(startup, scope=scope_r)
    exe.run(startup, scope=scope_f)
    losses_r = [v[0] for v in _epoch_in(exe, main, reader, [loss], scope_r)]
    losses_f = []
    for batch in sample_lists()():
        feed = {x.name: np.stack([b[0] for b in batch]), y.name: np.stack([b[1] for b in batch])}
        losses_f.append(exe.run(main, feed=feed, fetch_list=[loss], scope=scope_f)[0])
    np.testing.assert_array_equal(np.array(losses_r), np.array(losses_f))
    for p in main.global_block().all_parameters():
        np.testing.assert_array_equal(scope_r.get_array(p.name), scope_f.get_array(p.name))


def _epoch_in(exe, program, reader, fetch, scope):
    reader.start()
    out = []
    try:
        while True:
            out.append(exe.run(program, fetch_list=fetch, scope=scope))
    except fluid.core.EOFException:
        reader.reset()
    return out


def test_data_parallel_devices_each_read_a_batch_and_a_short_step_is_eof():
    main, startup, reader, x, y, loss = _net()
    reader.decorate_sample_list_generator(sample_lists(size=3))  # batches of 3, 3, 3, 1
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(2))
    steps = _epoch(exe, compiled, reader, [y])
    # step 1: device 0 reads batch [0, 1, 2], device 1 batch [3, 4, 5]; step 2 gets [6, 7, 8] and [9]
    assert [list(s[0].ravel()) for s in steps] == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9]]
    reader.decorate_sample_list_generator(sample_lists(size=4))  # 4, 4, 2: the third step lacks a batch
    steps = _epoch(exe, compiled, reader, [y])
    assert [list(s[0].ravel()) for s in steps] == [[0, 1, 2, 3, 4, 5, 6, 7]]


def test_parallel_executor_reads_a_batch_per_device(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    main, startup, reader, x, y, loss = _net()
    reader.decorate_sample_list_generator(sample_lists(size=2))
    fluid.Executor(fluid.CPUPlace()).run(startup)
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main)
    assert pe.device_count == 2
    reader.start()
    steps = []
    with pytest.raises(
        fluid.core.EOFException,
        match=r"py_reader 'py_reader_\d+': the data has ended \(fluid\.core\.EOFException\): catch it and call reset\(\) before the",
    ):
        while True:
            steps.append(list(pe.run([y.name])[0].ravel()))
    reader.reset()
    assert steps == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_sequences_keep_their_lod():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        reader = fluid.layers.py_reader(capacity=2, shapes=[(-1, 1)], dtypes=["int64"], lod_levels=[1])
        words = fluid.layers.read_file(reader)
    reader.decorate_sample_list_generator(lambda: iter([[([1, 2, 3],), ([4],)]]))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)  # it makes the reader variable that the program's read op reads, as in Fluid
    reader.start()
    (out,) = exe.run(main, fetch_list=[words], return_numpy=False)
    assert out.recursive_sequence_lengths() == [[3, 1]]
    assert list(np.array(out).ravel()) == [1, 2, 3, 4]
    reader.reset()


def test_sample_generator_batches_and_keeps_the_last_short_batch_without_drop_last():
    main, startup, reader, x, y, _ = _net()
    reader.decorate_sample_generator(lambda: iter(ROWS), batch_size=4, drop_last=False)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    assert [len(b[0]) for b in _epoch(exe, main, reader, [y])] == [4, 4, 2]
    reader.decorate_sample_generator(lambda: iter(ROWS), batch_size=4)
    assert [len(b[0]) for b in _epoch(exe, main, reader, [y])] == [4, 4]


def test_a_feed_of_some_reader_variables_replaces_the_reader():
    main, startup, reader, x, y, loss = _net()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    out = main.test_clone._prune_with_input([x.name], [loss])  # an inference program: x alone
    (value,) = exe.run(out, feed={x.name: np.ones((2, 3), "float32")}, fetch_list=[loss])  # never started
    assert value.shape == (1,)
    with fluid.program_guard(main, startup):
        uses_y = fluid.layers.cast(y, "float32") + 1.0
    with pytest.raises(FeedError, match=f"missing feed '{y.name}'"):
        exe.run(main, feed={x.name: np.ones((2, 3), "float32")}, fetch_list=[uses_y])


def test_a_clone_for_test_reads_the_same_reader():
    main, startup, reader, x, y, loss = _net()
    test = main.test_clone
    reader.decorate_sample_list_generator(sample_lists())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    assert [list(b[0].ravel()) for b in _epoch(exe, test, reader, [y])] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_never_decorated_is_a_clear_error():
    main, startup, reader, x, y, _ = _net(name="train_reader")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(PeError, match="py_reader 'train_reader' has no data: decorate it"):
        exe.run(main, fetch_list=[y])
    with pytest.raises(PeError, match="no data source to start"):
        reader.start()


def test_not_started_and_started_twice_are_clear_errors():
    main, startup, reader, x, y, _ = _net()
    reader.decorate_sample_list_generator(sample_lists())
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    with pytest.raises(PeError, match="is not started: call start"):
        exe.run(main, fetch_list=[y])
    reader.start()
    with pytest.raises(PeError, match="already started: call reset"):
        reader.start()
    reader.reset()


def test_a_raising_generator_is_reported_at_run_naming_the_reader():
    def broken():
        yield ROWS[:2]
        raise ValueError("corrupt record 7")

    main, startup, reader, x, y, _ = _net(name="r")
    reader.decorate_sample_list_generator(broken)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    reader.start()
    exe.run(main, fetch_list=[y])
    with pytest.raises(PeError, match="py_reader 'r': the decorated reader raised ValueError: corrupt record 7"):
        exe.run(main, fetch_list=[y])
    reader.reset()


def test_bad_batches_are_clear_errors():
    main, startup, reader, x, y, _ = _net("by_data")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    reader.decorate_sample_list_generator(lambda: iter([[(np.zeros(4, "float32"), np.array([1]))]]))
    reader.start()
    with pytest.raises(FeedError, match="expected shape \\[-1, 3\\] \\(-1 is any size\\), got \\[1, 4\\]"):
        exe.run(main, fetch_list=[y])  # batched as Fluid's DataFeeder, refused by fluid.data's check
    reader.reset()
    reader.decorate_batch_generator(lambda: iter([[np.zeros((2, 3), "float32")]]))
    reader.start()
    with pytest.raises(PeError, match="a batch has 1 value\\(s\\) but the reader has 2 slots \\(x, y\\)"):
        exe.run(main, fetch_list=[y])
    reader.reset()
    reader.decorate_batch_generator(lambda: iter([[np.zeros((2, 4), "float32"), np.zeros((2, 1), "int64")]]))
    reader.start()
    with pytest.raises(FeedError, match="expected shape \\[-1, 3\\]"):  # fluid.data checks its feeds
        exe.run(main, fetch_list=[y])
    reader.reset()


def test_read_file_once_and_only_of_a_reader():
    main, startup, reader, x, y, _ = _net()
    with fluid.program_guard(main, startup), pytest.raises(PeError, match="call read_file once per reader"):
        fluid.layers.read_file(reader)
    with pytest.raises(PeError, match="read_file: expected a reader made by fluid.layers.py_reader"):
        fluid.layers.read_file(x)
    assert fluid.layers.double_buffer(reader) is reader


def _loader_net(**kw):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="int64")
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=4, **kw)
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loader, x, y, loss


def test_data_loader_not_iterable_fills_its_feed_variables_on_every_device():
    main, startup, loader, x, y, loss = _loader_net(iterable=False)
    loader.set_sample_list_generator(sample_lists(size=2))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(2))
    for _ in range(2):
        steps = _epoch(exe, compiled, loader, [y])
        assert [list(s[0].ravel()) for s in steps] == [[0, 1, 2, 3], [4, 5, 6, 7]]  # [8, 9] lacks a pair


def test_data_loader_iterable_gives_one_feed_per_place():
    main, startup, loader, x, y, loss = _loader_net()
    loader.set_sample_generator(lambda: iter(ROWS), batch_size=3, drop_last=False, places=fluid.cpu_places(2))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(2))
    for _ in range(2):  # every epoch the same steps: batches [0 1 2] [3 4 5], [6 7 8] [9]
        steps = [data for data in loader()]
        assert [[list(np.array(d["y"]).ravel()) for d in step] for step in steps] == [
            [[0, 1, 2], [3, 4, 5]],
            [[6, 7, 8], [9]],
        ]
        assert [list(exe.run(compiled, feed=step, fetch_list=[y])[0].ravel()) for step in steps] == [
            [0, 1, 2, 3, 4, 5],
            [6, 7, 8, 9],
        ]


def test_data_loader_iterable_on_one_place_feeds_an_executor():
    main, startup, loader, x, y, loss = _loader_net(return_list=False)
    loader.set_batch_generator(
        lambda: iter([[np.ones((2, 3), "float32"), np.array([[4], [5]])]]), places=fluid.CPUPlace()
    )
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    assert [list(exe.run(main, feed=data, fetch_list=[y])[0].ravel()) for data in loader()] == [[4, 5]]


def test_data_loader_mistakes_are_clear_errors():
    main, startup, loader, x, y, loss = _loader_net()
    with pytest.raises(PeError, match="places cannot be None when the loader is iterable"):
        loader.set_sample_list_generator(sample_lists())
    with pytest.raises(PeError, match="start\\(\\) cannot be called when the DataLoader is iterable"):
        loader.start()
    with pytest.raises(ValueError, match="capacity"):
        fluid.io.DataLoader.from_generator(feed_list=[x, y])
