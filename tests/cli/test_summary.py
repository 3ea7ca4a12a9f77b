"""`pe summary` (issue 18, item 6): a model as a table, with parameter counts that add up to the
parameters the program really has."""

import re

import numpy as np
import pytest

from pe_cli.config import load_config
from pe_cli.run.build import build_programs
from tests.cli.test_helpers import pe


@pytest.mark.parametrize("config", ["configs/mnist_cnn_bn.yaml", "configs/ctr.yaml"])
def test_summary_counts_every_parameter_once(config):
    """Every layer's parameters, those of a layer function that names them after itself
    (embedding_0.w_0 in ctr.yaml's layer 'emb') too."""
    proc = pe("summary", config)
    assert proc.returncode == 0, proc.stderr
    rows = [
        line
        for line in proc.stdout.splitlines()
        if re.search(r"\(\w+\)\s", line) and not line.startswith("Layer (type)")
    ]
    counts = [int(re.split(r"\s{2,}", r)[2].replace(",", "")) for r in rows]
    programs = build_programs(load_config(config).model, None, with_optimizer=False)
    params = programs.test.global_block().all_parameters()
    assert sum(counts) == sum(int(np.prod(p.shape)) for p in params)
    total = int(re.search(r"Total params: ([\d,]+)", proc.stdout).group(1).replace(",", ""))
    trainable = int(re.search(r"Trainable params: ([\d,]+)", proc.stdout).group(1).replace(",", ""))
    assert total == sum(counts) and trainable == sum(int(np.prod(p.shape)) for p in params if p.trainable)
    assert re.search(r"conv1 \(conv2d\)\s+\[-1, \d+, 28, 28\]", proc.stdout) or re.search(
        r"emb \(embedding\)\s+\[-1, 8\]\s+8,000", proc.stdout
    )


def test_summary_of_lenet_as_written_by_hand():
    proc = pe("summary", "models/lenet.yaml")
    assert proc.returncode == 0, proc.stderr
    assert "Total params: 61,706" in proc.stdout  # 156 + 2,416 + 48,120 + 10,164 + 850
    assert re.search(r"fc1 \(fc\)\s+\[-1, 120\]\s+48,120\s+lenet\.yaml:10", proc.stdout)


def test_summary_of_a_broken_model_is_one_line():
    proc = pe("summary", "tests/broken_configs/unknown_top_key.yaml")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1


def test_model_file_keys_are_overridden_from_the_command_line(tmp_path):
    """`model.layers.<name>.<arg>=value` changes a layer of the model file (issue 18, item 7)."""
    proc = pe("summary", "configs/mnist_lenet.yaml", "model.layers.conv1.num_filters=8")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"conv1 \(conv2d\)\s+\[-1, 8, 28, 28\]\s+208", proc.stdout)
    run = tmp_path / "run"
    trained = pe(
        "train",
        "configs/mnist_lenet.yaml",
        "model.layers.conv1.num_filters=8",
        "data.train.limit=64",
        "--max-steps",
        "1",
        "output.curves=false",
        "--out",
        run,
        "-q",
    )
    assert trained.returncode == 0, trained.stderr
    assert "num_filters: 8" in (run / "model.yaml").read_text()  # the run records the model it trained
    bad = pe("summary", "configs/mnist_lenet.yaml", "model.layers.conv9.num_filters=8")
    assert bad.returncode == 2 and "has no layer 'conv9'" in bad.stderr


def test_train_prints_the_summary_before_the_first_step(tmp_path):
    table = pe("summary", "configs/mnist_logreg.yaml")
    assert table.returncode == 0, table.stderr
    proc = pe("train", "configs/mnist_logreg.yaml", "max_steps=2", "output.curves=false", "--out", tmp_path / "run")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(table.stdout)  # the same table, before any progress line
    quiet = pe(
        "train", "configs/mnist_logreg.yaml", "max_steps=2", "output.curves=false", "--out", tmp_path / "quiet", "-q"
    )
    assert "Total params" not in quiet.stderr + quiet.stdout
