"""A regression's target in the user's units (issue 77): a numeric target that data.preprocessing
scales (and data.transforms rescale) is learned scaled, but `pe predict`, eval.json's MAE/RMSE
(`pe train`'s and `pe eval`'s) and the ONNX export give values in the target column's units,
through real `pe` processes on generated data, trained a few steps."""

import csv
import json

import numpy as np
import pytest

from tests.cli.test_helpers import class_model, line_model, pe

MODEL = line_model(1)

CONFIG = """\
model: line.yaml
epochs: 5
data:
  train: {{format: csv, path: points.csv, columns: {{y: grams}}, stop: 240}}
  eval: {{format: csv, path: points.csv, columns: {{y: grams}}, start: 240}}
  batch_size: 20
  preprocessing:
    x: {{kind: numeric}}
    y: {{kind: numeric, scaling: {scaling}}}
{transforms}optimizer: {{type: SGD, learning_rate: 0.1}}
output: {{curves: false}}
"""


def _points(root, grams):
    """300 rows of x and a target in grams (1000 + 500 x, a little noise); the x of the last 60
    (data.eval's rows) alone in new.csv."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=300) * 2 + 5
    y = grams(x) * (1 + 0.002 * rng.normal(size=300))
    np.savetxt(root / "points.csv", np.column_stack([x, y]), delimiter=",", header="x,grams", comments="")
    np.savetxt(root / "new.csv", x[240:, None], delimiter=",", header="x", comments="")
    return y[240:]


def _run(root, scaling, transforms=""):
    (root / "line.yaml").write_text(MODEL)
    (root / "run.yaml").write_text(CONFIG.format(scaling=scaling, transforms=transforms))
    proc = pe("train", root / "run.yaml", "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    return _predict(root, "p.npz")["value"][:, 0]


def _predict(root, out):
    proc = pe(
        "predict", root / "run.yaml", "--checkpoint", root / "run", "--data", root / "new.csv", "-o", root / out, "-q"
    )
    assert proc.returncode == 0, proc.stderr
    if out.endswith(".npz"):
        return np.load(root / out)
    with open(root / out, newline="") as f:
        return np.array([float(r["y"]) for r in csv.DictReader(f)])


@pytest.fixture(scope="module")
def standardized(tmp_path_factory):
    root = tmp_path_factory.mktemp("grams")
    truth = _points(root, lambda x: 1000 + 500 * x)
    return root, truth, _run(root, "standardize")


def test_predictions_are_in_the_targets_units(standardized):
    root, truth, predicted = standardized
    assert len(predicted) == 60 and np.abs(predicted - truth).max() < 50  # grams, not standard deviations
    # exactly the model's own (standardized) output z, un-scaled: mean + std * z
    proc = pe(
        "eval",
        root / "run.yaml",
        "eval.fetches=[loss,pred]",
        "-c",
        root / "run",
        "--out",
        root / "e.json",
        "--save-fetches",
    )
    assert proc.returncode == 0, proc.stderr
    z = np.load(root / "e-fetches.npz")["pred"].astype(np.float64)
    target = json.loads((root / "run" / "preprocessing.json").read_text())["feeds"]["y"]
    assert target["scaling"] == "standardize" and target["divide"][0] > 100
    want = (target["shift"][0] + target["divide"][0] * z[:, 0]).astype(np.float32)
    assert predicted.dtype == np.float32 and np.array_equal(predicted, want)
    np.testing.assert_allclose(_predict(root, "p.csv"), want, rtol=1e-5)  # CSV: 6 significant digits


def test_eval_metrics_are_in_the_targets_units(standardized):
    root, truth, predicted = standardized
    pe_eval = pe("eval", root / "run.yaml", "-c", root / "run")
    assert pe_eval.returncode == 0, pe_eval.stderr
    for name in ("eval.json", "eval-step-60.json"):  # pe train's, pe eval's
        report = json.loads((root / "run" / name).read_text())["prediction"]
        assert report["kind"] == "regression" and report["samples"] == 60
        assert report["mae"] == pytest.approx(np.mean(np.abs(predicted - truth)), rel=1e-4)
        assert report["rmse"] == pytest.approx(np.sqrt(np.mean((predicted - truth) ** 2)), rel=1e-4)
        assert 1 < report["mae"] < 50


def test_onnx_outputs_the_targets_units(standardized):
    import onnxruntime as ort

    root, _, predicted = standardized
    proc = pe("export", root / "run.yaml", "-c", root / "run", "--onnx", root / "line.onnx")
    assert proc.returncode == 0, proc.stderr
    assert "preprocessing in the graph: x, the output in y's units" in proc.stdout
    x = np.loadtxt(root / "new.csv", skiprows=1, dtype=np.float32).reshape(-1, 1)
    got = ort.InferenceSession(str(root / "line.onnx")).run(None, {"x": x})[0][:, 0]
    np.testing.assert_allclose(got, predicted, rtol=1e-5)


def test_a_log_scaled_and_transformed_target_comes_back(tmp_path):
    """ln(1 + y), standardized, then data.transforms' scale: undone in the reverse order."""
    truth = _points(tmp_path, lambda x: np.exp(1 + 0.5 * x))
    predicted = _run(tmp_path, "log", "  transforms: {y: [{scale: 0.5}]}\n")
    assert np.median(np.abs(predicted - truth) / truth) < 0.05
    report = json.loads((tmp_path / "run" / "eval.json").read_text())["prediction"]
    assert report["mae"] == pytest.approx(np.mean(np.abs(predicted - truth)), rel=1e-4)


def test_pe_infer_on_an_exported_directory_gives_the_targets_units(standardized):
    root, _, predicted = standardized
    proc = pe("export", root / "run.yaml", "-c", root / "run", "--inference-dir", root / "inference")
    assert proc.returncode == 0, proc.stderr
    proc = pe("infer", root / "inference", "--data", root / "new.csv", "-o", root / "i.npz")
    assert proc.returncode == 0, proc.stderr
    (got,) = np.load(root / "i.npz").values()
    np.testing.assert_allclose(got[:, 0], predicted, rtol=1e-6)


@pytest.mark.parametrize(
    "kind, classes",
    [("label", ["Adelie", "Chinstrap", "Gentoo"]), ("category", ["<unknown>", "Adelie", "Gentoo", "Chinstrap"])],
)
def test_class_targets_come_out_as_class_names(tmp_path, kind, classes):
    """A label preprocessing's classes (sorted) or a category's vocabulary (most frequent first after
    <unknown>): pe predict writes the names, eval.json names the confusion matrix's classes."""
    x = np.arange(90) % 3 * 2.0  # 0, 2, 4: Adelie, Gentoo, Chinstrap; the last row Adelie too
    species = np.array(["Adelie", "Gentoo", "Chinstrap"])[(np.arange(90) % 3 + np.arange(90) // 89) % 3]
    size = len(classes)
    with open(tmp_path / "birds.csv", "w", newline="") as f:
        csv.writer(f).writerows([["x", "species"], *zip(x, species)])
    (tmp_path / "species.yaml").write_text(class_model(1, "species", size))
    (tmp_path / "run.yaml").write_text(
        "model: species.yaml\nepochs: 20\ndata:\n"
        "  train: {format: csv, path: birds.csv}\n  eval: {format: csv, path: birds.csv}\n  batch_size: 30\n"
        f"  preprocessing: {{x: {{kind: numeric}}, species: {{kind: {kind}}}}}\n"
        "optimizer: {type: Adam, learning_rate: 0.1}\noutput: {curves: false}\n"
    )
    proc = pe("train", tmp_path / "run.yaml", "--out", tmp_path / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "run" / "eval.json").read_text())["prediction"]
    assert report["classes"] == classes and len(report["confusion_matrix"]) == size
    np.savetxt(tmp_path / "new.csv", [[0.0], [2.0], [4.0]], header="x", comments="")
    proc = pe(
        "predict",
        tmp_path / "run.yaml",
        "--checkpoint",
        tmp_path / "run",
        "--data",
        tmp_path / "new.csv",
        "-o",
        tmp_path / "p.csv",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "p.csv", newline="") as f:
        assert [r["species"] for r in csv.DictReader(f)] == ["Adelie", "Gentoo", "Chinstrap"]
