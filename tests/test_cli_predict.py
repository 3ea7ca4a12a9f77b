"""`pe predict` (issue 18, item 3): a checkpoint on data without labels, through the real `pe`; its
classes agree with `pe eval`'s accuracy on the same images."""
import json

import numpy as np
import pytest

from pe_cli.data.idx import load_mnist
from test_cli_helpers import REPO, pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = ["data.train.limit=320", "data.eval.limit=200", "data.batch_size=32", "data.eval_batch_size=100",
         "epochs=1"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    root = tmp_path_factory.mktemp("predict")
    proc = pe("train", CONFIG, *SMALL, "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    images, labels = load_mnist(f"{REPO}/data/mnist", "eval")
    np.save(root / "images.npy", images[:200])
    return root, labels[:200]


def test_predictions_agree_with_eval(trained):
    root, labels = trained
    proc = pe("predict", CONFIG, *SMALL, "--checkpoint", root / "run", "--data", root / "images.npy")
    assert proc.returncode == 0, proc.stderr
    assert "predicted 200 samples with layer 'logits' (classes and probabilities)" in proc.stdout
    with np.load(root / "run" / "predictions-step-10.npz") as z:
        classes, prob = z["class"], z["prob"]
    assert prob.shape == (200, 10) and np.allclose(prob.sum(axis=1), 1, atol=1e-5)
    assert (classes == prob.argmax(axis=1)).all()
    evaluated = pe("eval", CONFIG, *SMALL, "--checkpoint", root / "run", "--out", root / "e.json")
    assert evaluated.returncode == 0, evaluated.stderr
    acc = json.loads((root / "e.json").read_text())["metrics"]["acc"]
    assert np.mean(classes == labels) == pytest.approx(acc, abs=1e-6)


def test_predictions_as_csv_and_bad_input(trained, tmp_path):
    root, _ = trained
    out = tmp_path / "p.csv"
    proc = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", root / "images.npy", "-o", out, "-q")
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("class,prob_0") and len(lines) == 201
    bad = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", root / "images.npy", "-o", tmp_path / "p.txt")
    assert bad.returncode == 1 and "written as .npz or .csv" in bad.stderr
    (tmp_path / "wrong.npy").write_bytes(np.zeros((5, 3), "float32").tobytes())
    np.save(tmp_path / "wrong.npy", np.zeros((5, 3), "float32"))
    bad = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", tmp_path / "wrong.npy")
    assert bad.returncode == 1 and "takes samples of shape" in bad.stderr and "Traceback" not in bad.stderr
