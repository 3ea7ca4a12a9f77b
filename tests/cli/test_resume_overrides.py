"""``pe train CONFIG --resume RUN key=value`` applies the override or refuses it in one line (issue 77):
a learning rate given to the resume trains on with it (SGD's step from the same checkpoint is that
many times larger); an override that changes a parameter's shape, or the preprocessing the run
fitted, is refused naming it, exit status 2, the run directory untouched; a model override that keeps
the shapes applies and the resume's config record names the model that ran; a resume watching
another metric starts its best afresh. Real `pe` processes."""

import json
import os
import shutil

import numpy as np
import pytest
import yaml

from tests.cli.test_helpers import pe, snapshot

LOGREG = "configs/mnist_logreg.yaml"  # SGD, learning_rate 0.1
SMALL = [
    "data.train.limit=64",
    "data.eval.limit=32",
    "data.batch_size=32",
    "epochs=4",
    "checkpoint.every_steps=2",
    "checkpoint.every_epochs=0",
    "eval.every_epochs=0",
    "output.curves=false",
]


def _params(ckpt):
    return {f[:-4]: np.load(ckpt / f) for f in sorted(os.listdir(ckpt)) if f.endswith(".npy")}


@pytest.fixture(scope="module")
def started(tmp_path_factory):
    """A run of 2 SGD steps at learning rate 0.1, its checkpoint at step 2."""
    run = tmp_path_factory.mktemp("resume") / "run"
    proc = pe("train", LOGREG, *SMALL, "--max-steps", 2, "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    return run


def _resumed(started, tmp_path, name, *overrides):
    run = tmp_path / name
    shutil.copytree(started, run)
    proc = pe("train", LOGREG, "--resume", run, *overrides, "--max-steps", 3, "-q")
    assert proc.returncode == 0, proc.stderr
    return run


def test_a_learning_rate_given_to_the_resume_trains_on_with_it(started, tmp_path):
    same = _resumed(started, tmp_path, "same")
    faster = _resumed(started, tmp_path, "faster", "optimizer.learning_rate=0.5")
    before = _params(started / "ckpt" / "step-2")
    a, b = _params(same / "ckpt" / "step-3"), _params(faster / "ckpt" / "step-3")
    assert a["learning_rate_0"][0] == np.float32(0.1) and b["learning_rate_0"][0] == np.float32(0.5)
    for name in ("logits.w_0", "logits.b_0"):  # SGD from the same point: w - lr * g, g the same
        step_a, step_b = a[name] - before[name], b[name] - before[name]
        assert np.abs(step_a).max() > 1e-4, name
        np.testing.assert_allclose(step_b, 5 * step_a, rtol=1e-3, atol=1e-6, err_msg=name)
    rows = [json.loads(line) for line in open(faster / "metrics.jsonl")]
    assert [r["lr"] for r in rows if r["phase"] == "train" and r["step"] == 3] == [pytest.approx(0.5)]
    recorded = yaml.safe_load((faster / "config.resumed-step-2.yaml").read_text())
    assert recorded["optimizer"]["learning_rate"] == 0.5  # the record says what ran
    assert json.loads((faster / "overrides.json").read_text())[-1] == "optimizer.learning_rate=0.5"


def test_a_model_override_that_keeps_the_shapes_applies_and_is_recorded(started, tmp_path):
    same = _resumed(started, tmp_path, "same")
    squashed = _resumed(started, tmp_path, "squashed", "model.layers.logits.act=sigmoid")
    assert yaml.safe_load((same / "config.resumed-step-2.yaml").read_text())["model"] == "model.yaml"
    record = yaml.safe_load((squashed / "config.resumed-step-2.yaml").read_text())
    assert record["model"] == "model.resumed-step-2.yaml"  # the model that ran, beside the run's own
    model = yaml.safe_load((squashed / record["model"]).read_text())
    assert model["layers"][0]["logits"]["act"] == "sigmoid"
    assert "act" not in yaml.safe_load((squashed / "model.yaml").read_text())["layers"][0]["logits"]
    a, b = _params(same / "ckpt" / "step-3"), _params(squashed / "ckpt" / "step-3")
    assert not np.array_equal(a["logits.w_0"], b["logits.w_0"])  # it trained with the sigmoid


def test_a_resume_watching_another_metric_starts_its_best_afresh(tmp_path):
    run, watch = tmp_path / "watched", ["eval.every_steps=1", "checkpoint.keep_best={metric: loss, mode: min}"]
    proc = pe("train", LOGREG, *SMALL, *watch, "--max-steps", 2, "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("train", LOGREG, "--resume", run, "checkpoint.keep_best={metric: acc, mode: max}", "--max-steps", 4, "-q")
    assert proc.returncode == 0, proc.stderr
    best = json.loads((run / "eval.json").read_text())["best"]
    assert best["metric"] == "acc" and best["step"] >= 3 and 0 <= best["value"] <= 1  # not step 1's loss
    assert (run / "ckpt" / "best").read_text().strip() == f"step-{best['step']}"


def test_a_batch_size_given_mid_epoch_continues_at_the_same_sample(tmp_path):
    run, four = tmp_path / "mid", ["data.train.limit=128", "checkpoint.every_epochs=1"]  # 4 batches an epoch
    proc = pe("train", LOGREG, *SMALL, *four, "--max-steps", 2, "--out", run, "-q")
    assert proc.returncode == 0, proc.stderr
    error = _refused(run, LOGREG, "data.batch_size=48")  # 64 samples in: not whole batches of 48
    assert "64 samples into epoch 1 (2 batches of 32)" in error and "data.batch_size is 48" in error
    proc = pe("train", LOGREG, "--resume", run, "data.batch_size=16", "--max-steps", 6, "-q")
    assert proc.returncode == 0, proc.stderr
    state = json.loads((run / "ckpt" / "step-6" / "trainer_state.json").read_text())
    assert (state["epoch"], state["batch"], state["samples"]) == (1, 0, 128)  # the other 64 in 4 steps of 16


def _refused(run, *args):
    before = snapshot(run)
    proc = pe("train", *args, "--resume", run, "--max-steps", 4)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stdout == ""
    assert snapshot(run) == before
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_an_override_that_changes_a_parameter_shape_is_refused(started):
    error = _refused(started, LOGREG, "model.layers.logits.size=12")
    assert "model.layers.logits.size=12" in error and "'logits.w_0' is [784, 10] in the checkpoint" in error
    assert "cannot change" in error and "without --resume" in error


def test_a_preprocessing_override_is_refused_naming_the_key(tmp_path):
    config, run = "configs/reviews_shipping.yaml", tmp_path / "ship"
    proc = pe(
        "train",
        config,
        *SMALL[:2],
        "epochs=1",
        "checkpoint.every_steps=2",
        "output.curves=false",
        "--max-steps",
        2,
        "--out",
        run,
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    error = _refused(run, config, "data.preprocessing.distance.scaling=minmax")
    assert 'data.preprocessing.distance.scaling is "minmax" here and "log" in the run' in error
