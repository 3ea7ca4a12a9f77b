"""paddle.io (Paddle 2.x): datasets, samplers and batch samplers as Paddle 2.6 defines them (the
DistributedBatchSampler's deal across ranks), and the DataLoader's batches of map-style and
iterable datasets (workers splitting by get_worker_info), fed to a static program; its workers'
``timeout`` honoured (one line naming it) and their number capped by the CPUs (issue 78)."""

import contextlib
import multiprocessing
import signal
import time

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base import limits
from pe_cli.base.errors import PeError
from pe_cli.paddle import io


class Squares(io.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.array([i], "float32"), np.array([i * i], "int64")


class Stream(io.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = io.get_worker_info()
        first, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(first, self.n, step):
            yield np.array([i], "float32"), np.array([i * i], "int64")


def test_datasets():
    t = io.TensorDataset([np.arange(6).reshape(3, 2), np.arange(3)])
    assert len(t) == 3 and [a.tolist() for a in t[1]] == [[2, 3], 1]
    c = io.ComposeDataset([Squares(4), Squares(4)])
    assert len(c) == 4 and len(c[2]) == 4
    cat = io.ConcatDataset([Squares(3), Squares(2)])
    assert len(cat) == 5 and cat[3][0][0] == 0 and cat[-1][0][0] == 1
    chain = io.ChainDataset([Stream(2), Stream(3)])
    assert [int(s[0][0]) for s in chain] == [0, 1, 0, 1, 2]
    sub = io.Subset(Squares(10), [7, 2])
    assert len(sub) == 2 and sub[0][1][0] == 49
    np.random.seed(0)
    parts = io.random_split(Squares(10), [3, 7])
    indices = sorted(parts[0].indices + parts[1].indices)
    assert [len(p) for p in parts] == [3, 7] and indices == list(range(10))
    assert [len(p) for p in io.random_split(Squares(10), [0.5, 0.5])] == [5, 5]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        io.random_split(Squares(10), [3, 3])
    with pytest.raises(AssertionError, match="tensors not have same shape of the 1st dimension"):
        io.TensorDataset([np.zeros(3), np.zeros(4)])
    with pytest.raises(RuntimeError, match="'__getitem__' should not be called for IterableDatasetStream"):
        Stream(3)[0]


def test_samplers():
    assert list(io.SequenceSampler(range(4))) == [0, 1, 2, 3]
    np.random.seed(1)
    assert sorted(io.RandomSampler(range(6))) == list(range(6))
    draws = list(io.RandomSampler(range(3), replacement=True, num_samples=50))
    assert len(draws) == 50 and set(draws) <= {0, 1, 2}
    with pytest.raises(ValueError, match="num_samples should not be specified while replacement is False"):
        io.RandomSampler(range(3), num_samples=2)
    weighted = list(io.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 200))
    assert set(weighted) == {1, 3} and 100 < weighted.count(3) < 190
    assert sorted(io.SubsetRandomSampler([5, 8, 9])) == [5, 8, 9]
    assert list(io.BatchSampler(Squares(5), batch_size=2)) == [[0, 1], [2, 3], [4]]
    assert list(io.BatchSampler(sampler=io.SequenceSampler(range(5)), batch_size=2, drop_last=True)) == [[0, 1], [2, 3]]
    assert len(io.BatchSampler(Squares(5), batch_size=2)) == 3
    with pytest.raises(AssertionError, match=r"dataset should not be a paddle\.io\.IterableDataset, but got <class"):
        io.BatchSampler(Stream(3))
    by_indices = io.BatchSampler(indices=[4, 1, 3, 0, 2], batch_size=2)  # Paddle 2.0-beta's form
    assert list(by_indices) == [[4, 1], [3, 0], [2]] and len(by_indices) == 3
    with pytest.raises(AssertionError, match="either dataset or indices should be set, not both"):
        io.BatchSampler(Squares(5), indices=[0, 1])


def test_distributed_batch_sampler_deals_every_index_to_one_rank():
    ranks = [list(io.DistributedBatchSampler(Squares(11), 2, num_replicas=3, rank=r)) for r in range(3)]
    # 11 indices padded to 12 (index 0 again), dealt in batch-size slices: 0,1 | 2,3 | 4,5 | 6,7 | ...
    assert ranks == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 0]]]
    assert len(io.DistributedBatchSampler(Squares(11), 2, num_replicas=3, rank=0)) == 2
    shuffled = io.DistributedBatchSampler(Squares(8), 2, num_replicas=2, rank=0, shuffle=True)
    first, second = list(shuffled), list(shuffled)
    assert first != second  # the epoch advances the shuffle
    shuffled.set_epoch(0)
    assert list(shuffled) == first


def test_dataloader_batches():
    batches = list(io.DataLoader(Squares(5), batch_size=2))
    assert [b[0].ravel().tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    stream = [b[1].ravel().tolist() for b in io.DataLoader(Stream(5), batch_size=2, drop_last=True)]
    assert stream == [[0, 1], [4, 9]]
    workers = [b[0].ravel().tolist() for b in io.DataLoader(Stream(7), batch_size=2, num_workers=2)]
    assert sorted(sum(workers, [])) == list(range(7))
    assert sorted(map(tuple, workers)) == [(0, 2), (1, 3), (4, 6), (5,)]
    assert io.get_worker_info() is None
    with pytest.raises(ValueError, match="IterableDataset not support shuffle, but got shuffle=True"):
        io.DataLoader(Stream(3), shuffle=True)
    with pytest.raises(ValueError, match="length of IterableDataset not supported"):
        len(io.DataLoader(Stream(3)))


def test_dataloader_feeds_a_static_program():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 1])
        y = paddle.static.data("y", [None, 1], "int64")
        total = paddle.sum(x) + paddle.sum(paddle.cast(y, "float32"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    loader = io.DataLoader(Squares(6), feed_list=[x, y], batch_size=3, return_list=False)
    got = [float(exe.run(main, feed=data, fetch_list=[total])[0]) for data in loader()]
    assert got == [0 + 1 + 2 + 0 + 1 + 4, 3 + 4 + 5 + 9 + 16 + 25]


def test_return_list_gives_every_field_whatever_feed_list_holds():
    """Paddle 2.6.2, measured (issue 96): ``DataLoader(dataset, feed_list=[x], batch_size=2)`` over samples of
    two fields, return_list left True, yields both fields each step ([x, label]), and the program fed x from
    them runs (sums [0, 3], [6, 9], [12]); with return_list=False, Paddle refuses the mismatch (pe too)."""
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 1])
        y = paddle.sum(x * 3.0, axis=1)
    exe = paddle.static.Executor(paddle.CPUPlace())
    steps = list(io.DataLoader(Squares(5), feed_list=[x], batch_size=2))
    assert [len(s) for s in steps] == [2, 2, 2]
    assert [s[1].ravel().tolist() for s in steps] == [[0, 1], [4, 9], [16]]
    assert [exe.run(main, feed={"x": s[0]}, fetch_list=[y])[0].tolist() for s in steps] == [[0, 3], [6, 9], [12]]
    with pytest.raises(PeError, match="a batch has 2 value"):
        exe.run(main, feed=next(iter(io.DataLoader(Squares(5), feed_list=[x], batch_size=2, return_list=False))))


def test_batch_size_none_takes_each_sample_as_a_batch():
    class Batches(io.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return np.full((3, 1), i, "float32"), np.full((3, 1), i, "int64")

    got = [[a.shape for a in b] + [int(b[1][0, 0])] for b in io.DataLoader(Batches(), batch_size=None)]
    assert got == [[(3, 1), (3, 1), 0], [(3, 1), (3, 1), 1]]


class Stuck(io.Dataset):
    """Samples 0 and 1, then a worker that never answers."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i >= 2:
            time.sleep(600)
        return np.array([i], "float32")


@contextlib.contextmanager
def _at_most(seconds):
    """Fails the test instead of hanging when the block takes longer than ``seconds``."""

    def expire(*_):
        raise AssertionError(f"still waiting after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_dataloader_timeout_ends_a_worker_that_never_answers():
    start, got = time.monotonic(), []
    with (
        _at_most(30),
        pytest.raises(
            RuntimeError,
            match=r"DataLoader: no batch came from its 1 worker process\(es\) within timeout=1 s \(DataLoader's timeout\); the",
        ) as e,
    ):
        for b in io.DataLoader(Stuck(), batch_size=1, num_workers=1, timeout=1):
            got.append(b[0].item())
    assert got == [0, 1] and time.monotonic() - start < 15
    assert isinstance(e.value, PeError) and "\n" not in str(e.value)
    assert "no batch came from its 1 worker process(es) within timeout=1 s" in str(e.value)
    assert not multiprocessing.active_children()  # the stuck worker is stopped


def test_dataloader_caps_num_workers_by_the_cpus():
    cpus = limits.cores()
    with pytest.warns(
        UserWarning,
        match=rf"num_workers=10000 is more than the {cpus} CPU\(s\) this process may use; "
        rf"{cpus} worker processes are started",
    ) as said:
        loader = io.DataLoader(Squares(5), batch_size=2, num_workers=10000)
    assert len(said) == 1 and "\n" not in str(said[0].message)
    assert said[0].filename == __file__  # the caller's line, not pe's
    assert loader.num_workers == cpus
    assert [b[0].ravel().tolist() for b in loader] == [[0, 1], [2, 3], [4]]


class Dies(io.Dataset):
    def __getitem__(self, i):
        import os

        os._exit(3)

    def __len__(self):
        return 4


def test_a_worker_that_dies_and_a_wrong_argument_are_pe_one_line_errors():
    """pe fluid prints pe's errors in one line: a worker's death is a PeError (still Fluid's ValueError)
    and the DataLoader's argument checks are (still Paddle's AssertionError), not bare Python ones."""
    with _at_most(30), pytest.raises(ValueError, match=r"reader 0 ended without finishing \(.*status 3\)") as e:
        list(io.DataLoader(Dies(), batch_size=1, num_workers=1, timeout=10))
    assert isinstance(e.value, PeError)
    with pytest.raises(AssertionError, match="num_workers should be a non-negative value") as e:
        io.DataLoader(Squares(5), batch_size=2, num_workers=-1)
    assert isinstance(e.value, PeError)
