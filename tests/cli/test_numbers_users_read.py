"""The numbers and names a user reads after training (issue 87): a regression's held-out RMSE, MAE
and R² in the target's units in ``pe train``'s summary, ``pe eval`` and ``pe plot`` (only the loss in
standardized units was printed); prediction columns named after the target (were value_0, class,
prob_<j>); id columns copied (predict.keep_columns, --keep); the values pe predict filled and the
categories it never saw, counted per column on stderr; a warning when the label's column is also an
input; ``pe predict --data PICTURE.png`` (one or several) on an image model (was refused). Real ``pe``
processes on generated tables and pictures."""

import csv
import json
import os
import random

import numpy as np
import pytest

from tests.cli.test_helpers import pe

MODEL = """\
layers:
  - hidden: {type: fc, input: x, size: 16, act: relu}
  - pred: {type: fc, input: hidden, size: 1}
loss: {type: square_error_cost, input: pred, label: temp_max}
"""
CONFIG = """\
model: m.yaml
epochs: 15
optimizer: {type: Adam, learning_rate: 0.02}
data:
  train: {format: csv, path: w.csv}
  split: {eval: 0.25}
  preprocessing:
    x: {kind: numeric, columns: [COLUMNS]}
    temp_max: {kind: numeric}
predict: {keep_columns: [station]}
"""


def _weather(root, rows=160):
    rng = random.Random(5)
    with open(root / "w.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["station", "temp_min", "humidity", "temp_max"])
        for i in range(rows):
            t, h = rng.uniform(0, 20), rng.uniform(30, 90)
            writer.writerow([f"s{i:03d}", f"{t:.2f}", f"{h:.1f}", f"{t + 8 - 0.05 * h + rng.gauss(0, 0.5):.2f}"])


@pytest.fixture(scope="module")
def weather(tmp_path_factory):
    root = tmp_path_factory.mktemp("weather")
    _weather(root)
    (root / "m.yaml").write_text(MODEL)
    (root / "c.yaml").write_text(CONFIG.replace("COLUMNS", "temp_min, humidity"))
    proc = pe("train", "c.yaml", "--out", "run", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root, proc


def test_a_regression_prints_rmse_mae_and_r2_in_the_targets_units(weather):
    root, proc = weather
    report = json.loads((root / "run" / "eval.json").read_text())["prediction"]
    line = f"temp_max: RMSE {report['rmse']:.4g}  MAE {report['mae']:.4g}  R² {report['r2']:.3f} (in temp_max's units)"
    assert f"held-out {line}" in proc.stdout.splitlines(), proc.stdout
    assert report["rmse"] < 1.5 and report["r2"] > 0.8  # degrees, not standardized units
    again = pe("eval", "c.yaml", "-c", "run", "-o", "e.json", cwd=root)
    assert again.returncode == 0 and line in again.stdout.splitlines(), again.stdout + again.stderr
    drawn = pe("plot", "run", "-o", "curves.svg", cwd=root)
    assert drawn.returncode == 0, drawn.stderr
    assert f"RMSE {report['rmse']:.4g}" in (root / "curves.svg").read_text()


def test_predictions_are_named_after_the_target_keep_ids_and_count_what_was_filled(weather):
    root, _ = weather
    (root / "new.csv").write_text("station,temp_min,humidity\nA,10,50\nB,,70\nC,5,\n")
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "p.csv", "-q", cwd=root)
    assert proc.returncode == 0, proc.stderr
    with open(root / "p.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["station", "temp_max"] and [r["station"] for r in rows] == ["A", "B", "C"]
    assert 12 < float(rows[0]["temp_max"]) < 18  # 10 + 8 - 2.5, in degrees
    assert "new.csv: column 'temp_min': 1 missing value filled with" in proc.stderr
    assert "new.csv: column 'humidity': 1 missing value filled with" in proc.stderr
    proc = pe(
        "predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "p.npz", "--keep", "humidity", "-q", cwd=root
    )
    assert proc.returncode == 0, proc.stderr
    with np.load(root / "p.npz") as z:
        assert z["station"].tolist() == ["A", "B", "C"] and z["humidity"].tolist() == ["50", "70", ""]
    bad = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "-o", "q.csv", "--keep", "statoin", cwd=root)
    assert bad.returncode == 1 and "--keep: new.csv has no column 'statoin'; did you mean 'station'?" in bad.stderr


def test_a_classifiers_columns_and_unseen_categories(tmp_path):
    rng = random.Random(2)
    with open(tmp_path / "b.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "island", "mass", "species"])
        for i in range(90):
            s = i % 3
            writer.writerow(
                [
                    f"p{i}",
                    ["Biscoe", "Dream", "Torgersen"][s],
                    f"{3000 + 1000 * s + rng.gauss(0, 50):.0f}",
                    ["Adelie", "Gentoo", "Chinstrap"][s],
                ]
            )
    (tmp_path / "m.yaml").write_text(
        "layers: [out: {type: fc, input: [mass, island], size: auto}]\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: species}\n"
    )
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 20\noptimizer: {type: Adam, learning_rate: 0.1}\n"
        "data:\n  train: {format: csv, path: b.csv}\n  batch_size: 30\n  preprocessing:\n"
        "    mass: {kind: numeric}\n    island: {kind: category, encoding: one_hot}\n"
        "    species: {kind: label}\n"
    )
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "new.csv").write_text("id,island,mass\nq1,Biscoe,3000\nq2,Atlantis,5000\nq3,,4000\n")
    proc = pe("predict", "c.yaml", "-c", "run", "--data", "new.csv", "--keep", "id", "-o", "p.csv", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "p.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == [
        "id",
        "species",
        "species_id",
        "species_prob_Adelie",
        "species_prob_Chinstrap",
        "species_prob_Gentoo",
    ]
    assert [r["id"] for r in rows] == ["q1", "q2", "q3"] and rows[0]["species"] == "Adelie"
    assert "new.csv: column 'island': 1 missing value read as <unknown>" in proc.stderr
    assert "new.csv: column 'island': 1 value not seen in training ('Atlantis') read as <unknown>" in proc.stderr


def test_a_label_column_also_read_as_an_input_is_warned_about(tmp_path):
    _weather(tmp_path, 60)
    (tmp_path / "m.yaml").write_text(MODEL)
    (tmp_path / "c.yaml").write_text(CONFIG.replace("COLUMNS", "temp_min, temp_max").replace("epochs: 15", "epochs: 1"))
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (
        "pe: warning: the label column 'temp_max' (feed 'temp_max') is also read by the input feed 'x': the "
        "model is given the answer; take 'temp_max' out of the columns of 'x'"
    ) in proc.stderr


def test_predict_on_picture_files(tmp_path):
    from PIL import Image as image

    rng = np.random.default_rng(1)
    for split, count in (("train", 12), ("eval", 2)):
        for name, level in (("dark", 40), ("light", 215)):
            os.makedirs(tmp_path / split / name)
            for i in range(count):
                pixels = np.clip(rng.normal(level, 20, (8, 8)), 0, 255).astype(np.uint8)
                image.fromarray(pixels, "L").save(tmp_path / split / name / f"{i}.png")
    (tmp_path / "m.yaml").write_text(
        "layers: [out: {type: fc, input: image, size: auto}]\n"
        "loss: {type: softmax_with_cross_entropy, logits: out, label: label}\n"
    )
    (tmp_path / "c.yaml").write_text(
        "model: m.yaml\nepochs: 10\noptimizer: {type: Adam, learning_rate: 0.05}\n"
        "data:\n  train: {format: folders, path: train}\n  batch_size: 8\n"
        "  preprocessing:\n    image: {kind: image, mode: L, size: [8, 8], scale: 0.0039}\n"
        "    label: {kind: label}\n"
    )
    proc = pe("train", "c.yaml", "--out", "run", "-q", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    one = pe("predict", "c.yaml", "-c", "run", "--data", "eval/light/0.png", "-o", "one.csv", "-q", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    with open(tmp_path / "one.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(r["path"], r["label"]) for r in rows] == [("eval/light/0.png", "light")]
    two = pe(
        "predict",
        "c.yaml",
        "-c",
        "run",
        "--data",
        "eval/dark/1.png",
        "--data",
        "eval/light/1.png",
        "-o",
        "two.csv",
        "-q",
        cwd=tmp_path,
    )
    assert two.returncode == 0, two.stderr
    with open(tmp_path / "two.csv", newline="") as f:
        assert [(r["path"], r["label"]) for r in csv.DictReader(f)] == [
            ("eval/dark/1.png", "dark"),
            ("eval/light/1.png", "light"),
        ]
    (tmp_path / "note.txt").write_text("hello\n")
    bad = pe("predict", "c.yaml", "-c", "run", "--data", "eval/dark/1.png", "--data", "note.txt", cwd=tmp_path)
    assert (
        bad.returncode == 1 and "note.txt is a text file; several --data files must each be an image" in bad.stderr
    ), bad.stderr
