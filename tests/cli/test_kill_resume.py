"""kill -9 of a run started with command-line overrides, then ``--resume`` with none (issue 56):
the run directory keeps the overrides (overrides.json), the resume restores them and ends
bit-identical to a run straight through. Real `pe` processes."""

import json
import os
import subprocess
import time

import numpy as np
import pytest
import yaml

from tests.cli.test_helpers import PE, REPO, pe

CONFIG = "configs/mnist_logreg.yaml"  # epochs: 5 in the file; the overrides make the run 600 steps
STARTED_WITH = [
    "data.train.limit=64",
    "data.eval.limit=64",
    "data.batch_size=32",
    "epochs=300",
    "fetch.every=10",
    "checkpoint.every_steps=20",
    "checkpoint.every_epochs=0",
    "checkpoint.keep=2",
    "eval.every_epochs=0",
    "output.curves=false",
]
STEPS = 600  # checkpoints every 20 steps: on report steps, so the rows match too


def _params(ckpt):
    return {f: np.load(ckpt / f) for f in sorted(os.listdir(ckpt)) if f.endswith(".npy")}


def _rows(run):
    drop = {"samples_per_s", "wall_s"}  # timings differ between processes
    return [{k: v for k, v in json.loads(line).items() if k not in drop} for line in open(run / "metrics.jsonl")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("killed")
    straight, killed = base / "straight", base / "killed"
    proc = pe("train", CONFIG, *STARTED_WITH, "--out", straight, "-q")
    assert proc.returncode == 0, proc.stderr
    started = subprocess.Popen(
        PE + ["train", CONFIG, *STARTED_WITH, "--out", str(killed), "-q"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not (killed / "ckpt" / "last").exists() and started.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)  # polling for the first checkpoint, then kill -9 at once
    started.kill()
    assert started.wait(timeout=60) == -9, "the run ended before it could be killed"
    last = (killed / "ckpt" / "last").read_text().strip()
    assert last.startswith("step-") and int(last[5:]) < STEPS  # killed mid-run, after a checkpoint
    resumed = pe("train", CONFIG, "--resume", killed)  # no overrides given to the resume
    return straight, killed, last, resumed


def test_resume_after_kill_restores_the_overrides_and_ends_bit_identical(runs):
    straight, killed, last, resumed = runs
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming {killed} from {killed / 'ckpt' / last}" in resumed.stderr
    assert f"trained {STEPS} steps" in resumed.stdout and "nothing to do" not in resumed.stdout
    final = f"step-{STEPS}"
    assert (killed / "ckpt" / "last").read_text().strip() == final
    a, b = _params(straight / "ckpt" / final), _params(killed / "ckpt" / final)
    assert a.keys() == b.keys() and len(a) >= 2
    for name in a:
        assert a[name].tobytes() == b[name].tobytes(), name
    assert _rows(killed) == _rows(straight)
    assert (
        json.loads((killed / "eval.json").read_text())["metrics"]
        == json.loads((straight / "eval.json").read_text())["metrics"]
    )
    assert json.loads((killed / "overrides.json").read_text()) == STARTED_WITH


def test_overrides_given_to_the_resume_apply_on_top(runs):
    _, killed, _, _ = runs
    proc = pe("train", CONFIG, "--resume", killed, "epochs=400", "fetch.every=5", "--print-config")
    assert proc.returncode == 0, proc.stderr
    printed = yaml.safe_load(proc.stdout)
    assert printed["epochs"] == 400 and printed["fetch"]["every"] == 5  # given now: they win
    assert printed["data"]["train"]["limit"] == 64 and printed["checkpoint"]["every_steps"] == 20  # recorded


def test_a_recorded_override_that_no_longer_applies_names_the_record(runs, tmp_path):
    _, killed, _, _ = runs
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(killed), str(copy)], check=True)
    (copy / "overrides.json").write_text(json.dumps(["epochs=many"]))
    proc = pe("train", CONFIG, "--resume", copy, "-q")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    error = proc.stderr.strip()
    assert len(error.splitlines()) == 1 and "epochs=many" in error and str(copy / "overrides.json") in error


def test_the_record_keeps_the_last_value_of_each_key():
    from pe_cli.run.run_overrides import merged

    assert merged(["epochs=300", "data.train.limit=64"], ["epochs=400", "data.train={path: x}"]) == [
        "data.train.limit=64",
        "epochs=400",
        "data.train={path: x}",
    ]  # order kept: a sub-key before its parent
