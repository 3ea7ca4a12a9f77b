"""Sequences from YAML: configs/mnist_rows_lstm.yaml (a ragged .npz source, a lod_level: 1 feed,
dynamic_lstm + sequence_pool) and configs/mnist_tokens_conv.yaml (ragged int64 token ids, embedding +
sequence_conv + sequence_pool) train with `pe train`, on 2 devices too, evaluate with `pe eval` and
resume; a feed and its data that disagree on being sequences is one error at the feed."""

import json

import numpy as np
import pytest

from pe_cli.data.ragged import Ragged
from tests.cli.test_helpers import pe

CONFIG = "configs/mnist_rows_lstm.yaml"
SMALL = [
    "data.train.limit=256",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=1",
    "fetch.every=4",
    "output.curves=false",
]


@pytest.mark.parametrize("config", [CONFIG, "configs/mnist_tokens_conv.yaml"])
def test_train_eval_resume(tmp_path, config):
    run = tmp_path / "run"
    proc = pe("train", config, *SMALL, "--max-steps", "4", "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-4"
    resumed = pe("train", config, *SMALL, "--resume", run, "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-8"
    ev = pe("eval", config, *SMALL, "--checkpoint", run)
    assert ev.returncode == 0, ev.stderr
    acc = json.loads((run / "eval.json").read_text())["metrics"]["acc"]
    assert 0.0 <= acc <= 1.0


def test_two_devices_split_the_sequences(tmp_path):
    proc = pe("train", CONFIG, *SMALL, "devices=2", "--max-steps", "3", "--out", tmp_path / "two", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "two" / "ckpt" / "last").read_text().strip() == "step-3"


def test_a_sequence_feed_given_plain_data_is_named(tmp_path):
    plain = tmp_path / "plain.npz"
    np.savez(plain, rows=np.zeros((8, 28), np.uint8), label=np.zeros(8, np.int64))
    proc = pe("train", CONFIG, *SMALL, f"data.train={{format: npz, path: {plain}}}", "--out", tmp_path / "x", "-q")
    assert proc.returncode != 0
    assert "lod_level 1 needs sequences" in proc.stderr and "rows_lengths" in proc.stderr, proc.stderr


def test_ragged_column_picks_whole_sequences():
    r = Ragged(np.arange(12).reshape(6, 2), [2, 1, 3], "x")
    part = r[np.array([2, 0])]
    assert len(r) == 3 and len(part) == 2
    assert part.lod() == [[0, 3, 5]]
    np.testing.assert_array_equal(np.array(part)[:, 0], [6, 8, 10, 0, 2])


def test_ragged_column_of_two_levels_picks_whole_samples():
    """An .npz's NAME_lengths_0 / NAME_lengths_1 (beam search's candidates per source): a sample is an
    entry of the outer level, with its inner sequences and their rows."""
    from pe_cli.data.ragged import npz_column
    from pe_cli.data.readers import DataError

    arrays = {"x": np.arange(7), "x_lengths_0": np.array([2, 1, 1]), "x_lengths_1": np.array([2, 1, 3, 1])}
    r = npz_column(arrays, "x")
    part = r[np.array([2, 0])]
    assert len(r) == 3 and part.recursive_sequence_lengths() == [[1, 2], [1, 2, 1]]
    np.testing.assert_array_equal(np.array(part), [6, 0, 1, 2])
    with pytest.raises(DataError, match="'x_lengths_0' sums to 5 but 'x_lengths_1' has entries: 4"):
        npz_column(dict(arrays, x_lengths_0=np.array([2, 2, 1])), "x")
