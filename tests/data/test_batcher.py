"""The Batcher: sizes, drop_last, and a shuffle that depends only on (seed, epoch)."""

import numpy as np
import pytest

from pe_cli.data import Batcher
from pe_cli.base.errors import PeError


def cols(n=10):
    return {"x": np.arange(n * 2).reshape(n, 2), "y": np.arange(n)}


def test_sizes_and_drop_last():
    b = Batcher(cols(10), 4, shuffle=False)
    assert len(b) == 3
    sizes = [len(batch["y"]) for _, batch in b.epoch(0)]
    assert sizes == [4, 4, 2]
    assert len(Batcher(cols(10), 4, shuffle=False, drop_last=True)) == 2
    assert [batch["y"].tolist() for _, batch in Batcher(cols(4), 2, shuffle=False).epoch(0)] == [[0, 1], [2, 3]]


def test_shuffle_is_seeded_per_epoch_and_keeps_rows_together():
    b = Batcher(cols(10), 3, shuffle=True, seed=7)
    e0 = np.concatenate([batch["y"] for _, batch in b.epoch(0)])
    e1 = np.concatenate([batch["y"] for _, batch in b.epoch(1)])
    assert sorted(e0.tolist()) == list(range(10)) and e0.tolist() != e1.tolist()
    again = np.concatenate([batch["y"] for _, batch in Batcher(cols(10), 3, seed=7).epoch(0)])
    assert e0.tolist() == again.tolist()
    for _, batch in b.epoch(0):
        assert np.array_equal(batch["x"][:, 0], batch["y"] * 2)


def test_resuming_mid_epoch_gives_the_same_batches():
    b = Batcher(cols(10), 3, seed=3)
    straight = [batch["y"].tolist() for _, batch in b.epoch(2)]
    resumed = [batch["y"].tolist() for _, batch in Batcher(cols(10), 3, seed=3).epoch(2, start_batch=2)]
    assert resumed == straight[2:]


def test_reader_yields_lists_of_samples():
    b = Batcher(cols(4), 2, shuffle=False)
    batches = list(b.reader()())
    assert len(batches) == 2 and len(batches[0]) == 2
    x, y = batches[1][0]
    assert x.tolist() == [4, 5] and y == 2


def test_bad_arguments():
    with pytest.raises(PeError, match="different lengths"):
        Batcher({"a": np.zeros(3), "b": np.zeros(4)}, 2)
    with pytest.raises(PeError, match="positive integer"):
        Batcher(cols(), 0)
