"""The bundled sequence data and configs: data/mnist_rows and data/mnist_tokens are what their scripts
make from data/mnist, and the sequence configs reach their held-out accuracy (README's table) with
`pe train` as a user runs them: the whole config, 1,000 steps each (about a minute together)."""

import importlib.util
import json
import os

import numpy as np
import pytest

from pe_cli.data.idx import read_idx
from tests.cli.test_helpers import REPO, pe


def _script(name):
    path = os.path.join(REPO, "data", name, f"make_{name}.py")
    spec = importlib.util.spec_from_file_location(f"make_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bundled_tokens_are_what_the_script_makes():
    make = _script("mnist_tokens")
    images = read_idx(os.path.join(REPO, "data", "mnist", "t10k-images-idx3-ubyte.gz"))
    bundled = np.load(os.path.join(REPO, "data", "mnist_tokens", "mnist_tokens.npz"))
    lengths = bundled["tokens_lengths"]
    starts = np.concatenate([[0], np.cumsum(lengths)])
    assert len(lengths) == len(images) == 10000 and starts[-1] == len(bundled["tokens"])
    assert lengths.min() >= 1 and lengths.max() <= 28
    assert bundled["tokens"].min() >= 0 and bundled["tokens"].max() < make.VOCAB
    for i in (0, 1, 4321, 9999):
        np.testing.assert_array_equal(
            bundled["tokens"][starts[i] : starts[i + 1], 0], make.tokens(make.trimmed(images[i]))
        )
    rows = np.load(os.path.join(REPO, "data", "mnist_rows", "mnist_rows.npz"))
    np.testing.assert_array_equal(rows["rows_lengths"], lengths)  # one token per non-blank row


def test_a_row_token_reads_its_groups_as_bits():
    make = _script("mnist_tokens")
    row = np.zeros((2, 28), np.uint8)
    row[0, :4] = 255  # first group lit: the high bit
    row[1, 24:] = 255  # last group lit: the low bit
    row[1, 4:8] = 64  # a group at the threshold stays dark
    np.testing.assert_array_equal(make.tokens(row), [64, 1])


@pytest.mark.parametrize(
    "config, least",
    [
        ("configs/mnist_rows_lstm.yaml", 0.97),
        ("configs/mnist_tokens_conv.yaml", 0.93),
        # 92.70% where the GEMMs are OpenBLAS's, 91.95% where MKL's (an Intel host: runtime/cblas.py), whose
        # rounding takes another path down the same loss
        ("configs/mnist_rows_dynamic_rnn.yaml", 0.91),
    ],
)
def test_sequence_configs_reach_their_held_out_accuracy(tmp_path, config, least):
    proc = pe("train", config, "--out", tmp_path / "run", "-q", timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "run" / "eval.json").read_text())
    assert result["samples"] == 2000 and result["step"] == 1000
    assert result["metrics"]["acc"] >= least, f"{config}: held-out accuracy {result['metrics']['acc']:.4f}"
