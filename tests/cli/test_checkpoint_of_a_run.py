"""A checkpoint inside a run directory is the run's (issue 77, items 2 and 6): `pe predict`, `pe eval`
and `pe export` refuse a CONFIG whose model or preprocessing differs from the run's records, naming
the key; `--checkpoint RUN` is the best checkpoint where the run kept one; each says which step."""

import numpy as np
import pytest

from pe_cli.data.idx import load_mnist
from tests.cli.test_helpers import REPO, pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = ["data.train.limit=320", "data.eval.limit=100", "data.batch_size=32", "epochs=1", "output.curves=false"]
SIGMOID = "model.layers.fc1.act=sigmoid"
BEST = ["checkpoint.keep_best.metric=loss", "checkpoint.keep_best.mode=max", "eval.every_steps=2"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("run_record")
    proc = pe("train", CONFIG, *SMALL, SIGMOID, *BEST, "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    images, _ = load_mnist(f"{REPO}/data/mnist", "eval")
    np.save(root / "images.npy", images[:100])
    best = (root / "run" / "ckpt" / "best").read_text().strip()
    assert best != (root / "run" / "ckpt" / "last").read_text().strip()  # the highest loss: an early step
    assert f"; best: {root / 'run' / 'ckpt' / best} (loss " in proc.stdout  # pe train's last lines say it
    return root, best


def test_a_sigmoid_run_predicts_with_its_model_from_its_best_checkpoint(run):
    root, best = run
    step = best.split("-")[1]
    said = f"checkpoint: {root / 'run' / 'ckpt' / best} (step {step})"
    proc = pe(
        "predict",
        CONFIG,
        SIGMOID,
        "--checkpoint",
        root / "run",
        "--data",
        root / "images.npy",
        "-o",
        root / "p.npz",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    assert said in proc.stdout
    evaluated = pe(
        "eval",
        CONFIG,
        *SMALL,
        SIGMOID,
        "eval.fetches=[logits]",
        "--checkpoint",
        root / "run",
        "-o",
        root / "e.json",
        "--save-fetches",
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert said in evaluated.stdout
    with np.load(root / "e-fetches.npz") as z:
        logits = z["logits"]
    expected = np.exp(logits - logits.max(axis=1, keepdims=True))
    with np.load(root / "p.npz") as z:
        np.testing.assert_allclose(z["prob"], expected / expected.sum(axis=1, keepdims=True), atol=1e-6)


def test_a_config_that_disagrees_with_the_run_is_refused_naming_the_key(run, tmp_path):
    root, best = run
    proc = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", root / "images.npy", "-o", tmp_path / "p.npz")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert 'model.layers.fc1.act "sigmoid"' in proc.stderr and 'CONFIG gives "relu"' in proc.stderr
    assert f"pe predict {root / 'run' / 'config.yaml'}" in proc.stderr
    proc = pe(
        "export",
        CONFIG,
        SIGMOID,
        "model.layers.fc1.size=64",
        "--checkpoint",
        root / "run" / "ckpt" / "last",
        "--inference-dir",
        tmp_path / "inf",
    )
    assert proc.returncode == 2 and "model.layers.fc1.size 256" in proc.stderr and "gives 64" in proc.stderr
    assert not list(tmp_path.iterdir())
    proc = pe(
        "export",
        root / "run" / "config.yaml",
        "--checkpoint",
        root / "run" / "ckpt" / "last",
        "--inference-dir",
        tmp_path / "inf",
    )
    assert proc.returncode == 0, proc.stderr
    assert "(step 10)" in proc.stdout


def test_a_checkpoint_after_a_resume_that_changed_the_model_is_checked_against_that_record(tmp_path):
    proc = pe("train", CONFIG, *SMALL, "--out", tmp_path / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("train", CONFIG, SIGMOID, "epochs=2", "--resume", tmp_path / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "run" / "model.resumed-step-10.yaml").is_file()
    export = ["--inference-dir", tmp_path / "inf"]
    before = pe("export", CONFIG, "--checkpoint", tmp_path / "run" / "ckpt" / "step-10", *export)
    assert before.returncode == 0 and "(step 10)" in before.stdout, before.stderr
    after = pe("export", CONFIG, "--checkpoint", tmp_path / "run", *export)
    assert after.returncode == 2 and 'model.layers.fc1.act "sigmoid"' in after.stderr
    assert "config.resumed-step-10.yaml" in after.stderr
    after = pe("export", CONFIG, SIGMOID, "--checkpoint", tmp_path / "run", *export)
    assert after.returncode == 0 and "(step 20)" in after.stdout, after.stderr
    table = pe("summary", tmp_path / "run")
    assert table.returncode == 0, table.stderr
    assert f"(step 20); model from {tmp_path / 'run' / 'config.resumed-step-10.yaml'}" in table.stdout
    assert "model.resumed-step-10.yaml:" in table.stdout
