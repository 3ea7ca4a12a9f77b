"""pe train / pe eval through the real command: the run directory, numbered runs, exact resume,
Ctrl-C, evaluation of checkpoints, --print-config and overrides."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import yaml

from tests.cli.test_helpers import PE, REPO, pe, snapshot

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=2",
    "fetch.every=4",
    "output.curves=false",
]


def params(ckpt):
    return {f: np.load(os.path.join(ckpt, f)) for f in sorted(os.listdir(ckpt)) if f.endswith(".npy")}


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """One small run straight through (20 steps), shared by several tests."""
    out = tmp_path_factory.mktemp("runs") / "straight"
    proc = pe("train", CONFIG, *SMALL, "output.graphs=[forward, train]", "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_run_directory(straight):
    out, proc = straight
    for name in (
        "config.yaml",
        "model.yaml",
        "metrics.csv",
        "metrics.jsonl",
        "fetches.npz",
        "eval.json",
        "ckpt/last",
        "ckpt/step-20/trainer_state.json",
        "graph-forward.dot",
        "graph-train.txt",
    ):
        assert os.path.exists(out / name), name
    assert (out / "ckpt" / "last").read_text().strip() == "step-20"
    with open(out / "metrics.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["phase", "step", "epoch", "loss", "acc", "lr", "samples_per_s", "wall_s"]
    assert float(rows[0]["lr"]) == pytest.approx(0.05)  # configs/mnist_mlp.yaml's learning rate
    train_rows = [r for r in rows if r["phase"] == "train"]
    assert [int(r["step"]) for r in train_rows] == [4, 8, 12, 16, 20]
    assert [r["epoch"] for r in rows if r["phase"] == "eval"] == ["1", "2"]
    jsonl = [json.loads(line) for line in open(out / "metrics.jsonl")]
    assert len(jsonl) == len(rows) and jsonl[0]["step"] == 4 and "samples_per_s" in jsonl[0]
    with np.load(out / "fetches.npz") as z:
        assert z["step"].tolist() == [4, 8, 12, 16, 20] and z["loss"].shape == (5, 1)
    resolved = yaml.safe_load((out / "config.yaml").read_text())
    assert resolved["model"] == "model.yaml" and resolved["data"]["train"]["limit"] == 320
    result = json.loads((out / "eval.json").read_text())
    assert result["step"] == 20 and result["samples"] == 200 and set(result["metrics"]) == {"loss", "acc"}
    assert f"run directory: {out}" in proc.stdout and "held-out accuracy:" in proc.stdout
    assert "train epoch 1 step 4: loss" in proc.stderr  # plain lines when not on a terminal


def test_an_existing_run_directory_is_never_overwritten(straight, tmp_path):
    out, _ = straight
    before = snapshot(out)
    proc = pe("train", CONFIG, *SMALL, "--max-steps", "2", "--out", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", proc.stderr  # --quiet
    assert f"run directory: {out}-2" in proc.stdout
    assert snapshot(out) == before


def test_resume_ends_with_the_same_parameters(straight, tmp_path):
    out, _ = straight
    run = tmp_path / "resumed"
    first = pe("train", CONFIG, *SMALL, "--out", run, "--max-steps", "7", "-q")
    assert first.returncode == 0, first.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-7"
    second = pe("train", CONFIG, *SMALL, "--resume", run, "-q")
    assert second.returncode == 0, second.stderr
    a, b = params(out / "ckpt" / "step-20"), params(run / "ckpt" / "step-20")
    assert a.keys() == b.keys() and len(a) > 6
    for name in a:
        assert np.array_equal(a[name], b[name]), name
    assert (
        json.loads((run / "eval.json").read_text())["metrics"] == json.loads((out / "eval.json").read_text())["metrics"]
    )
    steps = [json.loads(line)["step"] for line in open(run / "metrics.jsonl")]
    assert steps == sorted(steps) and steps.count(8) == 1  # rows after step 7 were not kept twice
    assert os.path.exists(run / "config.resumed-step-7.yaml")


def test_resume_last_picks_the_newest_run(tmp_path):
    proc = pe("train", CONFIG, *SMALL, "--out", tmp_path / "r", "--max-steps", "3", "-q")
    assert proc.returncode == 0
    proc = pe("train", CONFIG, *SMALL, "--out", tmp_path / "r", "--resume", "--max-steps", "5", "-q")
    assert proc.returncode == 0, proc.stderr
    assert f"run directory: {tmp_path / 'r'}" in proc.stdout
    assert (tmp_path / "r" / "ckpt" / "last").read_text().strip() == "step-5"
    proc = pe("train", CONFIG, *SMALL, "--out", tmp_path / "none", "--resume", "last")
    assert proc.returncode == 1 and "no run of" in proc.stderr


def test_eval_reports_the_same_as_training(straight, tmp_path):
    out, _ = straight
    target = tmp_path / "e.json"
    proc = pe("eval", CONFIG, *SMALL, "--checkpoint", out / "ckpt" / "step-20", "--out", target, "--save-fetches")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(target.read_text())
    trained = json.loads((out / "eval.json").read_text())
    assert result["metrics"] == pytest.approx(trained["metrics"], rel=1e-6)
    assert result["samples"] == 200 and "accuracy:" in proc.stdout
    with np.load(tmp_path / "e-fetches.npz") as z:
        assert z["acc"].shape == (2,) and z["loss"].shape == (2,)  # [1] per batch of 100, concatenated
    # the run directory's own config works from anywhere
    proc = pe("eval", out / "config.yaml", "--checkpoint", out, "--out", tmp_path / "again.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "again.json").read_text())["metrics"] == result["metrics"]


def test_eval_of_a_missing_checkpoint():
    proc = pe("eval", CONFIG, "--checkpoint", "no/such/run")
    assert proc.returncode == 1 and proc.stderr.strip() == "pe: error: checkpoint no/such/run does not exist"


def test_print_config_and_overrides(tmp_path):
    proc = pe("train", CONFIG, "optimizer.learning_rate=0.2", "devices=2", "data.seed=9", "--print-config", cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    cfg = yaml.safe_load(proc.stdout)
    assert cfg["optimizer"]["learning_rate"] == 0.2 and cfg["devices"] == 2
    assert cfg["data"]["seed"] == 9 and cfg["data"]["eval_batch_size"] == 500
    assert cfg["model"] == "models/mlp.yaml" and cfg["data"]["train"]["path"] == "data/mnist"
    assert cfg["build_strategy"]["reduce_strategy"] == "AllReduce" and cfg["fetch"]["names"] == ["loss", "acc"]
    assert not os.path.exists(os.path.join(REPO, "runs", "mnist_mlp-999"))


def test_two_devices_train(tmp_path):
    proc = pe(
        "train",
        CONFIG,
        *SMALL,
        "devices=2",
        "build_strategy.reduce_strategy=Reduce",
        "--max-steps",
        "6",
        "--out",
        tmp_path / "two",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "two" / "ckpt" / "last").read_text().strip() == "step-6"


def test_ctrl_c_checkpoints_and_resume_continues(tmp_path):
    run = tmp_path / "interrupted"
    args = [
        "train",
        CONFIG,
        "data.train.limit=2000",
        "data.eval.limit=100",
        "data.batch_size=16",
        "epochs=50",
        "fetch.every=1",
        "--out",
        str(run),
    ]
    proc = subprocess.Popen(PE + args, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        metrics = run / "metrics.csv"
        if metrics.exists() and len(metrics.read_text().splitlines()) > 3:
            break
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert (
        f"continue with: pe train {CONFIG} data.train.limit=2000 data.eval.limit=100 data.batch_size=16 "
        f"epochs=50 fetch.every=1 --resume {run}" in stderr
    )  # the overrides it was started with
    last = (run / "ckpt" / "last").read_text().strip()
    state = json.loads((run / "ckpt" / last / "trainer_state.json").read_text())
    assert last == f"step-{state['step']}" and state["step"] >= 3
    resumed = pe("train", *args[1:-2], "--resume", run, "--max-steps", str(state["step"] + 2), "-q")
    assert resumed.returncode == 0, resumed.stderr
    assert (run / "ckpt" / "last").read_text().strip() == f"step-{state['step'] + 2}"


def test_help_is_written_for_people():
    proc = pe("--help")
    assert proc.returncode == 0
    for command in ("train", "eval", "graph", "smoke", "layers", "keys"):
        assert command in proc.stdout
        sub = pe(command, "--help")
        assert sub.returncode == 0 and "Usage: pe " + command in sub.stdout
    assert "--resume [PATH|last]" in pe("train", "--help").stdout


def test_help_loads_no_engine_module():
    """`pe --help` and `pe train --help` load click alone: no numpy, no pe_cli.config (issue 17: help
    under 0.3 s; the engine's imports take most of a second)."""
    probe = (
        "import sys\nfrom click.testing import CliRunner\nfrom pe_cli.cli.main import main\n"
        "for args in (['--help'], ['train', '--help'], ['export', '--help']):\n"
        "    assert CliRunner().invoke(main, args).exit_code == 0, args\n"
        "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith(('pe_cli.config', 'pe_cli.run'))))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_pe_keys_and_layers():
    keys = pe("keys", "run")
    assert keys.returncode == 0 and "data.batch_size  (an integer, default 64)" in keys.stdout
    layers = pe("layers", "fc")
    assert layers.returncode == 0 and layers.stdout.startswith("fc(input, size")
    typo = pe("layers", "fcc")
    assert typo.returncode == 2 and "did you mean 'fc'" in typo.stderr


def test_cuda_without_a_gpu_is_a_config_error():
    proc = pe("train", CONFIG, "place=cuda", env={"NUMBA_ENABLE_CUDASIM": "0"})
    assert proc.returncode == 2
    assert proc.stderr.startswith("command line 'place=cuda': place: no CUDA GPU is usable here")


def test_fetches_as_npy_files(tmp_path):
    proc = pe(
        "train",
        CONFIG,
        *SMALL,
        "fetch.save=npy",
        "fetch.every=2",
        "--max-steps",
        "4",
        "data.eval=null",
        "--out",
        tmp_path / "npy",
        "-q",
    )
    assert proc.returncode == 0, proc.stderr
    files = sorted(os.listdir(tmp_path / "npy" / "fetches"))
    assert files == ["acc-step-2.npy", "acc-step-4.npy", "loss-step-2.npy", "loss-step-4.npy"]
    assert np.load(tmp_path / "npy" / "fetches" / "loss-step-4.npy").shape == (1,)
    assert not os.path.exists(tmp_path / "npy" / "eval.json") and "held-out" not in proc.stdout
