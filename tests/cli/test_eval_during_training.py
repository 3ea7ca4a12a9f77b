"""Evaluation during training (issue 18, item 2), through the real `pe`: eval.every_steps, the best
checkpoint (checkpoint.keep_best), early stopping, and pe eval's own result file."""

import json
import os

from tests.cli.test_helpers import pe, snapshot

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=2",
    "fetch.every=4",
    "eval.every_epochs=0",
    "output.curves=false",
]


def rows(run, phase):
    return [r for r in map(json.loads, open(run / "metrics.jsonl")) if r["phase"] == phase]


def test_every_steps_and_the_best_checkpoint(tmp_path):
    run = tmp_path / "best"
    proc = pe(
        "train",
        CONFIG,
        *SMALL,
        "eval.every_steps=5",
        "checkpoint.keep=1",
        "checkpoint.keep_best={metric: acc, mode: max}",
        "--out",
        run,
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    evals = rows(run, "eval")
    assert [r["step"] for r in evals] == [5, 10, 15, 20]
    best = max(evals, key=lambda r: r["acc"])
    first_best = min(r["step"] for r in evals if r["acc"] == best["acc"])
    assert (run / "ckpt" / "best").read_text().strip() == f"step-{first_best}"
    assert os.path.isdir(run / "ckpt" / f"step-{first_best}")  # kept though keep=1
    assert (run / "ckpt" / "last").read_text().strip() == "step-20"
    summary = json.loads((run / "eval.json").read_text())
    row = next(r for r in evals if r["step"] == first_best)
    kept = {k: summary["best"][k] for k in ("metric", "value", "step", "epoch", "checkpoint")}
    assert kept == {
        "metric": "acc",
        "value": best["acc"],
        "step": first_best,
        "epoch": row["epoch"],
        "checkpoint": str(run / "ckpt" / f"step-{first_best}"),
    }
    assert summary["best"]["metrics"] == {k: v for k, v in row.items() if k in ("loss", "acc")}
    again = pe("eval", CONFIG, *SMALL, "--checkpoint", run / "ckpt" / "best")
    assert again.returncode == 0, again.stderr
    assert json.loads((run / f"eval-step-{first_best}.json").read_text())["metrics"]["acc"] == __import__(
        "pytest"
    ).approx(best["acc"], rel=1e-6)


def test_early_stopping_ends_the_run_and_says_why(tmp_path):
    run = tmp_path / "early"
    proc = pe(
        "train",
        CONFIG,
        *SMALL,
        "eval.every_steps=2",
        "early_stopping={metric: loss, mode: min, patience: 2, min_delta: 100}",
        "--out",
        run,
    )
    assert proc.returncode == 0, proc.stderr
    assert "early stopping: loss did not improve by more than 100 for 2 evaluations" in proc.stdout
    assert (proc.stdout + proc.stderr).count("early stopping") == 1  # said once, in the result
    assert [r["step"] for r in rows(run, "eval")] == [2, 4, 6]
    summary = json.loads((run / "eval.json").read_text())
    assert summary["step"] == 6 and summary["stopped_early"].startswith("early stopping")
    assert (run / "ckpt" / "last").read_text().strip() == "step-6"


def test_pe_eval_never_overwrites_the_runs_eval_json(tmp_path):
    run = tmp_path / "r"
    assert pe("train", CONFIG, *SMALL, "--out", run, "-q").returncode == 0
    before = snapshot(run)
    proc = pe("eval", CONFIG, *SMALL, "--checkpoint", run)
    assert proc.returncode == 0, proc.stderr
    assert (run / "eval-step-20.json").is_file()
    after = snapshot(run)
    assert {k: v for k, v in after.items() if k != "eval-step-20.json"} == before


def test_a_watched_metric_must_be_evaluated(tmp_path):
    proc = pe("train", CONFIG, *SMALL, "early_stopping.metric=accuracy", "--out", tmp_path / "x")
    assert proc.returncode == 2 and "early_stopping.metric: 'accuracy' is not an evaluation fetch" in proc.stderr
    assert not (tmp_path / "x").exists()


def test_metrics_and_fetches_hold_the_same_steps_and_the_last_one(tmp_path):
    """Every fetch.every steps and the last step: a run shorter than fetch.every still has a row."""
    import numpy as np

    for every, want in ((50, [10]), (4, [4, 8, 10])):
        run = tmp_path / f"every{every}"
        proc = pe("train", CONFIG, *SMALL, "epochs=1", f"fetch.every={every}", "--out", run, "-q")
        assert proc.returncode == 0, proc.stderr
        assert [r["step"] for r in rows(run, "train")] == want
        with np.load(run / "fetches.npz") as z:
            assert z["step"].tolist() == want
