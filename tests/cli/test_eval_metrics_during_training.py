"""The numbers each evaluation during training reports (issue 97, item 6): every evaluation's line on
screen and row of metrics.csv/metrics.jsonl carry each output's RMSE, MAE and R² in its units (and a
category output's accuracy), computed as the held-out report is; ``checkpoint.keep_best`` and
``early_stopping`` watch any of them, lower or higher being better as the metric is; pe train's summary
names the checkpoint whose numbers it prints (the best one with keep_best). Every number is recomputed
from ``pe predict`` of the checkpoint evaluated and the table's labels. Real ``pe`` processes on the
bundled penguins table (its complete rows), one output in grams and one of species."""

import csv
import json
import math
import os
import re

import numpy as np
import pytest

from tests.cli.test_helpers import complete_penguins, pe

MODEL = """\
input_features: [{name: measures, column: [bill_depth_mm, flipper_length_mm, bill_length_mm], kind: numeric}]
output_features: [{column: body_mass_g, kind: numeric}, {column: species, kind: category}]
"""
CONFIG = """\
model: m.yaml
epochs: 2
optimizer: {type: Adam, learning_rate: 0.05}
eval: {every_epochs: 0, every_steps: 3}
checkpoint: {every_steps: 3, keep: 0}
output: {curves: false}
data:
  train: {format: csv, path: p.csv}
  split: {eval: 0.25}
  batch_size: 64
"""


def _scores(root, rows, eval_rows, checkpoint):
    """RMSE, MAE, R² of body_mass_g and the accuracy of species, recomputed from pe predict's CSV of
    ``checkpoint`` over the eval rows."""
    out = f"pred-{os.path.basename(checkpoint)}.csv"
    proc = pe("predict", "c.yaml", "-c", checkpoint, "--data", "p.csv", "-o", out, "-q", cwd=root)
    assert proc.returncode == 0, proc.stderr
    with open(root / out, newline="") as f:
        pred = list(csv.DictReader(f))
    y = np.array([float(rows[i]["body_mass_g"]) for i in eval_rows])
    p = np.array([float(pred[i]["body_mass_g"]) for i in eval_rows])
    err = p - y
    return {
        "body_mass_g_rmse": math.sqrt(np.mean(err**2)),
        "body_mass_g_mae": float(np.mean(np.abs(err))),
        "body_mass_g_r2": float(1 - np.sum(err**2) / np.sum((y - y.mean()) ** 2)),
        "species_acc": float(np.mean([pred[i]["species"] == rows[i]["species"] for i in eval_rows])),
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run evaluated every 3 steps (and at its end, step 8), keeping the checkpoint of the lowest RMSE in grams; each
    evaluated checkpoint's numbers recomputed from its predictions."""
    root = tmp_path_factory.mktemp("units")
    rows = complete_penguins(root / "p.csv")
    (root / "m.yaml").write_text(MODEL)
    (root / "c.yaml").write_text(CONFIG)
    proc = pe("train", "c.yaml", "checkpoint.keep_best.metric=body_mass_g_rmse", "--out", "run", cwd=root)
    assert proc.returncode == 0, proc.stderr
    eval_rows = json.loads((root / "run" / "split.json").read_text())["eval_rows"]
    evals = [r for r in map(json.loads, open(root / "run" / "metrics.jsonl")) if r["phase"] == "eval"]
    assert len(evals) >= 3
    scores = {r["step"]: _scores(root, rows, eval_rows, f"run/ckpt/step-{r['step']}") for r in evals}
    return {"root": root, "proc": proc, "evals": evals, "scores": scores}


NAMES = ("body_mass_g_rmse", "body_mass_g_mae", "body_mass_g_r2", "species_acc")


def test_each_evaluation_reports_rmse_mae_r2_in_grams_and_accuracy(run):
    """species_acc, the output feature's accuracy fetch, is the species' accuracy: no second column."""
    with open(run["root"] / "run" / "metrics.csv", newline="") as f:
        csv_rows = {int(r["step"]): r for r in csv.DictReader(f) if r["phase"] == "eval"}
    lines = [line for line in run["proc"].stderr.splitlines() if line.startswith("eval ")]
    assert len(lines) == len(run["evals"])
    for row, line in zip(run["evals"], lines):
        want = run["scores"][row["step"]]
        assert line.startswith(f"eval  epoch {row['epoch']} step {row['step']}: "), line
        for name in NAMES:
            assert row[name] == pytest.approx(want[name], rel=1e-6, abs=1e-9), (row["step"], name)
            assert float(csv_rows[row["step"]][name]) == pytest.approx(want[name], rel=1e-5), (row["step"], name)
            printed = float(re.search(rf"\b{name} (\S+)", line).group(1))
            assert printed == pytest.approx(want[name], rel=1e-3, abs=1e-4), (line, name)
        assert 100 < want["body_mass_g_rmse"] < 2000  # grams, not standardized units
        assert "species_accuracy" not in row


def test_keep_best_on_rmse_keeps_the_lowest_recomputed_and_the_summary_reports_it(run):
    root, scores = run["root"], run["scores"]
    rmse = {step: s["body_mass_g_rmse"] for step, s in scores.items()}
    best = min(rmse, key=rmse.get)
    assert len(set(rmse.values())) > 1 and best != max(scores)  # the evaluations differ; the best is not the last
    assert (root / "run" / "ckpt" / "best").read_text().strip() == f"step-{best}"
    epoch = next(r["epoch"] for r in run["evals"] if r["step"] == best)
    summary = json.loads((root / "run" / "eval.json").read_text())["best"]
    assert (summary["metric"], summary["step"], summary["epoch"]) == ("body_mass_g_rmse", best, epoch)
    assert summary["value"] == pytest.approx(rmse[best], rel=1e-6)
    out = run["proc"].stdout
    path = os.path.join("run", "ckpt", f"step-{best}")  # as --out gave it
    assert f"; best: {path} (body_mass_g_rmse {rmse[best]:.4f} at step {best}, epoch {epoch};" in out, out
    want = scores[best]
    line = f"held-out body_mass_g: RMSE {want['body_mass_g_rmse']:.4g}  MAE {want['body_mass_g_mae']:.4g}  R² "
    assert line + f"{want['body_mass_g_r2']:.3f} (in body_mass_g's units)" in out.splitlines(), out
    assert f"held-out species: accuracy {100 * want['species_acc']:.2f}%" in out.splitlines(), out


def test_without_keep_best_the_summary_names_the_last_checkpoint(tmp_path):
    complete_penguins(tmp_path / "p.csv")
    (tmp_path / "m.yaml").write_text(MODEL)
    (tmp_path / "c.yaml").write_text(CONFIG.replace("epochs: 2", "epochs: 1"))
    proc = pe("train", "c.yaml", "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    last = json.loads((tmp_path / "run" / "eval.json").read_text())["step"]
    said = (
        f"checkpoint: {tmp_path / 'run' / 'ckpt' / f'step-{last}'} (step {last}, epoch 1; the held-out numbers are its)"
    )
    assert said in proc.stdout.splitlines(), proc.stdout


def test_watching_accuracy_keeps_the_highest_and_early_stopping_on_mae_stops(run, tmp_path):
    root = run["root"]
    proc = pe(
        "train",
        "c.yaml",
        "checkpoint.keep_best.metric=species_acc",
        "early_stopping={metric: body_mass_g_mae, patience: 1, min_delta: 1000000}",
        "--out",
        tmp_path / "watched",
        "-q",
        cwd=root,
    )
    assert proc.returncode == 0, proc.stderr
    evals = [r for r in map(json.loads, open(tmp_path / "watched" / "metrics.jsonl")) if r["phase"] == "eval"]
    assert [r["step"] for r in evals] == [3, 6]  # no MAE improves by a million grams: one evaluation more
    assert "early stopping: body_mass_g_mae did not improve by more than 1e+06 for 1 evaluations" in proc.stdout
    highest = max(evals, key=lambda r: r["species_acc"])["species_acc"]
    first = min(r["step"] for r in evals if r["species_acc"] == highest)
    assert (tmp_path / "watched" / "ckpt" / "best").read_text().strip() == f"step-{first}"  # higher is better


@pytest.mark.parametrize(
    "overrides, said",
    [
        (
            ["checkpoint.keep_best.metric=price_rmse"],
            "checkpoint.keep_best.metric: 'price_rmse' is not an evaluation fetch nor a number each evaluation "
            "reports; use one of loss, body_mass_g_loss, species_loss, species_acc, body_mass_g_rmse, "
            "body_mass_g_mae, body_mass_g_r2",
        ),
        (
            ["eval.fetches=[loss, species_logits]", "early_stopping.metric=species_logits"],
            "early_stopping.metric: pe cannot tell whether a higher or a lower 'species_logits' is better; add "
            "early_stopping.mode: max (higher is better) or min",
        ),
    ],
)
def test_a_metric_no_evaluation_reports_or_of_no_known_way_is_refused_in_one_line(run, overrides, said, tmp_path):
    proc = pe("train", "c.yaml", *overrides, "--out", tmp_path / "x", cwd=run["root"])
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert said in proc.stderr and f"command line '{overrides[-1]}'" in proc.stderr, proc.stderr
    assert not (tmp_path / "x").exists()


def test_a_classifier_without_an_accuracy_fetch_reports_its_accuracy_and_keep_best_takes_the_highest(tmp_path):
    small = ["data.train.limit=320", "data.eval.limit=200", "data.batch_size=32", "epochs=1", "output.curves=false"]
    run = tmp_path / "mnist"
    watch = ["eval.fetches=[loss]", "eval.every_steps=3", "checkpoint.keep_best.metric=label_accuracy"]
    proc = pe("train", "configs/mnist_mlp.yaml", *small, *watch, "--out", run)
    assert proc.returncode == 0, proc.stderr
    evals = [r for r in map(json.loads, open(run / "metrics.jsonl")) if r["phase"] == "eval"]
    assert [r["step"] for r in evals] == [3, 6, 9, 10] and all(set(r) >= {"loss", "label_accuracy"} for r in evals)
    report = json.loads((run / "eval.json").read_text())
    assert evals[-1]["label_accuracy"] == report["prediction"]["top1_accuracy"]  # the held-out report's number
    highest = max(r["label_accuracy"] for r in evals)
    first = min(r["step"] for r in evals if r["label_accuracy"] == highest)
    assert (run / "ckpt" / "best").read_text().strip() == f"step-{first}"
    assert f"held-out accuracy: {100 * highest:.2f}%" in proc.stdout.splitlines(), proc.stdout  # the best's
