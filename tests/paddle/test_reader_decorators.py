"""Fluid's reader decorators (fluid.io and paddle.reader share one implementation) and
fluid.io.DataLoader over a map-style Dataset: samples, order, alignment, and errors that end the
reader with the cause (in a thread, in a worker process, a process killed) instead of a hang."""

import os
import signal
import threading

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.paddle import reader as paddle_reader


def count(n, start=0):
    def reader():
        yield from range(start, start + n)

    return reader


def failing_after(n, error):
    def reader():
        yield from range(n)
        raise error

    return reader


def test_both_faces_export_the_same_decorators():
    for name in paddle_reader.__all__:
        assert getattr(fluid.io, name) is getattr(paddle_reader, name)
    assert fluid.io.default_collate_fn is fluid.reader.default_collate_fn


def test_compose_takes_check_alignment_as_a_keyword():
    pairs = fluid.io.compose(count(3), lambda: iter([(10, 11), (12, 13), (14, 15)]))
    assert list(pairs()) == [(0, 10, 11), (1, 12, 13), (2, 14, 15)]
    with pytest.raises(fluid.io.ComposeNotAligned, match=r"outputs of readers are not aligned\."):
        list(fluid.io.compose(count(3), count(2))())
    assert issubclass(fluid.io.ComposeNotAligned, ValueError)
    assert list(fluid.io.compose(count(3), count(2), check_alignment=False)()) == [(0, 0), (1, 1)]


def test_chain_firstn_map_cache_shuffle():
    assert list(fluid.io.chain(count(2), count(2, 5))()) == [0, 1, 5, 6]
    assert list(fluid.io.firstn(count(10), 3)()) == [0, 1, 2]
    assert list(fluid.io.map_readers(lambda a, b: a * b, count(3), count(3, 1))()) == [0, 2, 6]
    calls = []

    def once():
        calls.append(1)
        yield from range(3)

    cached = fluid.io.cache(once)
    assert list(cached()) == list(cached()) == [0, 1, 2] and len(calls) == 1
    shuffled = list(fluid.io.shuffle(count(10), 4)())
    assert sorted(shuffled[:4]) == [0, 1, 2, 3] and sorted(shuffled) == list(range(10))


def test_buffered_reads_ahead_on_a_thread_and_passes_on_its_error():
    produced = []

    def tracked():
        for i in range(100):
            produced.append(i)
            yield i

    it = fluid.io.buffered(tracked, 5)()
    assert next(it) == 0
    for _ in range(50):
        if len(produced) >= 6:
            break
        threading.Event().wait(0.01)
    assert 6 <= len(produced) <= 8  # read ahead, but no further than the buffer
    assert list(it) == list(range(1, 100))
    it = fluid.io.buffered(failing_after(3, KeyError("bad line 3")), 2)()
    assert [next(it) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(KeyError, match="bad line 3"):
        next(it)


def test_xmap_readers_maps_on_threads_in_order_when_asked():
    names = set()

    def mapper(x):
        names.add(threading.current_thread().name)
        threading.Event().wait(0.001 * (x % 3))
        return x * x

    ordered = list(fluid.io.xmap_readers(mapper, count(30), 4, 8, order=True)())
    assert ordered == [x * x for x in range(30)]
    assert threading.current_thread().name not in names
    assert sorted(fluid.io.xmap_readers(mapper, count(30), 4, 8)()) == ordered
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        list(fluid.io.xmap_readers(lambda x: 1 // (x - 5), count(10), 3, 2, order=True)())
    with pytest.raises(OSError, match="disk"):
        list(fluid.io.xmap_readers(lambda x: x, failing_after(4, OSError("disk")), 2, 2)())


@pytest.mark.parametrize("use_pipe", [True, False])
def test_multiprocess_reader_merges_the_readers_of_its_processes(use_pipe):
    def pairs(tag):
        def reader():
            for i in range(4):
                yield (tag, i, os.getpid())

        return reader

    samples = list(fluid.io.multiprocess_reader([pairs(0), pairs(1)], use_pipe=use_pipe)())
    assert sorted((s[0], s[1]) for s in samples) == [(t, i) for t in (0, 1) for i in range(4)]
    pids = {s[0]: s[2] for s in samples}
    assert os.getpid() not in pids.values() and pids[0] != pids[1]
    if use_pipe:  # JSON through pipes, one sample of each process in turn, as Fluid
        assert [s[:2] for s in samples[:2]] == [[0, 0], [1, 0]]
    with pytest.raises(AssertionError):
        fluid.io.multiprocess_reader(pairs(0))


@pytest.mark.parametrize("use_pipe", [True, False])
def test_multiprocess_reader_ends_with_its_childs_error(use_pipe):
    with pytest.raises(ValueError, match=r"reader 1 raised KeyError: 'line 2 of part-1'"):
        list(
            paddle_reader.multiprocess_reader(
                [count(3), failing_after(2, KeyError("line 2 of part-1"))], use_pipe=use_pipe
            )()
        )

    def killed():
        yield 1
        os.kill(os.getpid(), signal.SIGKILL)

    with pytest.raises(ValueError, match=r"reader 0 ended without finishing \(.*status -9\)"):
        list(paddle_reader.multiprocess_reader([killed], use_pipe=use_pipe)())


def test_multiprocess_reader_pipe_refuses_what_json_cannot_carry():
    with pytest.raises(ValueError, match="ndarray is not JSON serializable"):
        list(fluid.io.multiprocess_reader([lambda: iter([np.zeros(2)])])())


def test_default_collate_fn_stacks_each_field():
    batch = [(np.full(2, i, "float32"), i) for i in range(3)]
    images, labels = fluid.io.default_collate_fn(batch)
    assert images.shape == (3, 2) and list(labels) == [0, 1, 2]
    (whole,) = fluid.io.default_collate_fn([np.ones(2), np.zeros(2)])
    assert whole.shape == (2, 2)
    with pytest.raises(RuntimeError, match="Unknown data type"):
        fluid.io.default_collate_fn([("a",), ("b",)])


class Squares(fluid.io.Dataset):
    def __getitem__(self, idx):
        return np.array([idx], "float32"), np.array([idx * idx], "int64")

    def __len__(self):
        return 10


def _loader_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 1], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="int64")
        out = fluid.layers.scale(x, scale=2.0)
    return main, startup, x, y, out


def test_data_loader_takes_fluids_parameters_and_feeds_a_dataset():
    import inspect

    assert list(inspect.signature(fluid.io.DataLoader).parameters)[:14] == [
        "dataset",
        "feed_list",
        "places",
        "return_list",
        "batch_sampler",
        "batch_size",
        "shuffle",
        "drop_last",
        "collate_fn",
        "num_workers",
        "use_buffer_reader",
        "use_shared_memory",
        "timeout",
        "worker_init_fn",
    ]
    main, startup, x, y, out = _loader_program()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for workers in (0, 2):
        loader = fluid.io.DataLoader(
            Squares(), feed_list=[x, y], places=fluid.cpu_places(1), batch_size=4, num_workers=workers
        )
        assert len(loader) == 3
        got = [exe.run(main, feed=data, fetch_list=[out, y]) for data in loader()]
        assert [list(o.ravel()) for o, _ in got] == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]
        assert list(got[2][1].ravel()) == [64, 81]
    dropped = fluid.io.DataLoader(Squares(), return_list=True, places=fluid.cpu_places(1), batch_size=4, drop_last=True)
    assert [[list(a.ravel()) for a in step[0]][1] for step in dropped] == [[0, 1, 4, 9], [16, 25, 36, 49]]


def test_data_loader_refuses_as_fluid_does():
    _, _, x, y, _ = _loader_program()
    with pytest.raises(AssertionError, match="subclass instance of paddle.io.Dataset"):
        fluid.io.DataLoader([1, 2], feed_list=[x, y], places=fluid.cpu_places(1))
    with pytest.raises(AssertionError, match="feed_list should be set"):
        fluid.io.DataLoader(Squares(), places=fluid.cpu_places(1))
    sampler = fluid.io.BatchSampler(dataset=Squares(), batch_size=3)
    with pytest.raises(AssertionError, match="should not be set when batch_sampler is given"):
        fluid.io.DataLoader(
            Squares(), feed_list=[x, y], places=fluid.cpu_places(1), batch_sampler=sampler, batch_size=2
        )


def test_data_loader_worker_error_ends_the_epoch():
    class Broken(Squares):
        def __getitem__(self, idx):
            if idx == 6:
                raise IndexError("record 6 is damaged")
            return super().__getitem__(idx)

    loader = fluid.io.DataLoader(Broken(), return_list=True, places=fluid.cpu_places(1), batch_size=2, num_workers=2)
    with pytest.raises(ValueError, match="record 6 is damaged"):
        list(loader())
