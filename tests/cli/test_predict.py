"""`pe predict` (issue 18, item 3): a checkpoint on data without labels, through the real `pe`; its
classes agree with `pe eval`'s accuracy on the same images."""

import json

import numpy as np
import pytest

from pe_cli.data.idx import load_mnist
from tests.cli.test_helpers import REPO, line_model, pe

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=1",
    "output.curves=false",
]


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
    proc = pe("predict", CONFIG, "-c", root / "run", "--data", root / "images.npy", "-o", out, "-q")  # -c as eval's
    assert proc.returncode == 0, proc.stderr
    lines = out.read_text().splitlines()
    assert lines[0].startswith("label,label_prob_0") and len(lines) == 201
    bad = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", root / "images.npy", "-o", tmp_path / "p.txt")
    assert bad.returncode == 1 and "written as .npz or .csv" in bad.stderr
    (tmp_path / "wrong.npy").write_bytes(np.zeros((5, 3), "float32").tobytes())
    np.save(tmp_path / "wrong.npy", np.zeros((5, 3), "float32"))
    bad = pe("predict", CONFIG, "--checkpoint", root / "run", "--data", tmp_path / "wrong.npy")
    assert bad.returncode == 1 and "takes samples of shape" in bad.stderr and "Traceback" not in bad.stderr


def test_a_data_file_of_another_kind_is_named(trained, tmp_path):
    root, _ = trained
    (tmp_path / "x.txt").write_text("a,b\n1,2\n")
    (tmp_path / "one.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    (tmp_path / "fake.npy").write_bytes(b"\xff\xd8\xff\xe0" + bytes(64))
    for name, found, hint in (
        ("x.txt", "is a text file; --data takes a CSV/TSV/JSONL table", "name it .csv"),
        (
            "one.png",
            "is a PNG image; image files go to a model whose one input is an image "
            "feed (data.preprocessing kind: image)",
            "--data takes a CSV/TSV/JSONL table",
        ),
        ("fake.npy", "is a JPEG image, not an NPY array as its name says", "an IDX file"),
    ):
        bad = pe("predict", CONFIG, "-c", root / "run", "--data", tmp_path / name)
        lines = bad.stderr.strip().splitlines()
        assert bad.returncode == 1 and len(lines) == 1, bad.stderr
        assert f"{tmp_path / name} {found}" in lines[0] and hint in lines[0], bad.stderr


def test_eval_json_holds_accuracy_and_the_confusion_matrix(trained):
    root, labels = trained
    pe("predict", CONFIG, *SMALL, "--checkpoint", root / "run", "--data", root / "images.npy", "-o", root / "p.npz")
    with np.load(root / "p.npz") as z:
        classes = z["class"]
    for report in (
        json.loads((root / "run" / "eval.json").read_text()),  # pe train's last evaluation
        json.loads((root / "e.json").read_text()),
    ):  # pe eval's
        prediction = report["prediction"]
        assert prediction["kind"] == "classification" and prediction["output"] == "logits"
        assert prediction["samples"] == 200
        assert prediction["top1_accuracy"] == pytest.approx(report["metrics"]["acc"], abs=1e-6)
        confusion = np.array(prediction["confusion_matrix"])
        want = np.zeros((10, 10), dtype=np.int64)
        np.add.at(want, (labels, classes), 1)  # rows: true class, columns: pe predict's class
        assert (confusion == want).all()


REGRESSION_MODEL = line_model(3)

REGRESSION_CONFIG = """\
model: line.yaml
data:
  train: {format: csv, path: points.csv, columns: {x: [x0, x1, x2], y: y}, stop: 400}
  eval: {format: csv, path: points.csv, columns: {x: [x0, x1, x2], y: y}, start: 400}
  batch_size: 20
optimizer: {type: SGD, learning_rate: 0.1}
epochs: 3
"""


def test_a_regression_reports_mae_rmse_and_r2(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(500, 3))
    y = x @ np.array([1.5, -2.0, 0.5]) + 0.3 + 0.1 * rng.normal(size=500)
    np.savetxt(tmp_path / "points.csv", np.column_stack([x, y]), delimiter=",", header="x0,x1,x2,y", comments="")
    (tmp_path / "line.yaml").write_text(REGRESSION_MODEL)
    (tmp_path / "run.yaml").write_text(REGRESSION_CONFIG)
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "out", "-q")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out" / "eval.json").read_text())
    prediction = report["prediction"]
    assert prediction["kind"] == "regression" and prediction["output"] == "pred" and prediction["samples"] == 100
    # the loss is the mean squared error: RMSE is its square root
    assert prediction["rmse"] == pytest.approx(np.sqrt(report["metrics"]["loss"]), rel=1e-5)
    assert 0 < prediction["mae"] <= prediction["rmse"] < 0.3
    truth = y[400:]
    assert prediction["r2"] == pytest.approx(
        1 - prediction["rmse"] ** 2 * len(truth) / np.sum((truth - truth.mean()) ** 2), rel=1e-4
    )
    assert prediction["r2"] > 0.98
