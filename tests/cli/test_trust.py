"""A run never loses work (issue 10): resuming an older checkpoint branches instead of deleting
what came after it, a resume checks the checkpoint before it changes anything, flags that cannot
both apply are refused, and one process at a time writes a run directory. Real `pe` processes."""

import fcntl
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.cli.test_helpers import PE, REPO, pe, snapshot

CONFIG = "configs/mnist_mlp.yaml"
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=2",
    "fetch.every=4",
    "checkpoint.keep=5",
    "output.curves=false",
]


@pytest.fixture(scope="module")
def run20(tmp_path_factory):
    """A finished 20-step run with checkpoints at steps 10 and 20 (one per epoch)."""
    out = tmp_path_factory.mktemp("trust") / "run"
    proc = pe("train", CONFIG, *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(out / "ckpt")) == ["last", "step-10", "step-20"]
    return out


def test_resuming_an_older_checkpoint_branches_and_keeps_the_parent(run20):
    before = snapshot(run20)
    proc = pe("train", CONFIG, *SMALL, "--resume", run20 / "ckpt" / "step-10", "--max-steps", "14", "-q")
    assert proc.returncode == 0, proc.stderr
    assert snapshot(run20) == before  # the parent is byte for byte unchanged
    branch = run20.parent / "run-2"
    assert f"run directory: {branch} (a branch of {run20}" in proc.stdout
    parent = json.loads((branch / "parent.json").read_text())
    assert parent["step"] == 10 and parent["checkpoint"].endswith("step-10")
    last = (branch / "ckpt" / "last").read_text().strip()
    assert last == "step-14" and (branch / "ckpt" / last / "trainer_state.json").is_file()
    steps = [json.loads(line)["step"] for line in open(branch / "metrics.jsonl")]
    assert steps == sorted(steps) and max(steps) == 14 and 8 in steps  # the parent's rows up to 10 came along
    again = pe("train", CONFIG, *SMALL, "--resume", branch, "--max-steps", "16", "-q")  # the branch's newest
    assert again.returncode == 0, again.stderr
    assert f"run directory: {branch}" in again.stdout


def test_pruning_keeps_what_was_written_last(tmp_path):
    """keep=1: the checkpoint just written survives even when an older run holds higher steps."""
    from pe_cli.run.rundir import Checkpoints

    ck = Checkpoints(tmp_path, keep=1)
    for step in (200, 60):
        d = ck.path(step)
        os.makedirs(d)
        (tmp_path / "ckpt" / f"step-{step}" / "trainer_state.json").write_text("{}")
        os.utime(d + "/trainer_state.json", (step == 60 and 2e9 or 1e9,) * 2)
    ck._prune()
    assert os.listdir(tmp_path / "ckpt") == ["step-60"]


@pytest.mark.parametrize(
    "damage, message",
    [
        ('{"step": -5}', "'step' is -5"),
        ('{"step": "ten"}', "'step' is 'ten'"),
        ("[1, 2]", "not a trainer state"),
        ("{oops", "unreadable"),
    ],
)
def test_a_damaged_state_is_refused_before_anything_changes(run20, tmp_path, damage, message):
    run = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(run20), str(run)], check=True)
    (run / "ckpt" / "step-20" / "trainer_state.json").write_text(damage)
    before = snapshot(run)
    proc = pe("train", CONFIG, *SMALL, "--resume", run, "--max-steps", "25", "-q")
    assert proc.returncode != 0 and message in proc.stderr and "Traceback" not in proc.stderr
    assert snapshot(run) == before and sorted(os.listdir(tmp_path)) == ["copy"]


def test_flags_that_cannot_both_apply_are_refused(run20, tmp_path):
    before = snapshot(run20)
    cases = [
        (["--resume", run20, "--out", tmp_path / "other"], "cannot be used with --resume"),
        (["--resume", run20, "--max-steps", "5"], "below the step of the checkpoint"),
        (["--resume", tmp_path / "missing", "--print-config"], "no such run or checkpoint"),
    ]
    for flags, message in cases:
        proc = pe("train", CONFIG, *SMALL, *flags, "-q")
        assert proc.returncode == 2 and message in proc.stderr, (flags, proc.stderr)
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
    assert snapshot(run20) == before and os.listdir(tmp_path) == []


def test_one_process_per_run_directory(run20, tmp_path):
    run = tmp_path / "locked"
    subprocess.run(["cp", "-a", str(run20), str(run)], check=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, os, sys, time\n"
                f"fd = os.open({str(run / '.lock')!r}, os.O_RDWR | os.O_CREAT)\n"
                "fcntl.flock(fd, fcntl.LOCK_EX); os.ftruncate(fd, 0); os.write(fd, f'{os.getpid()}'.encode())\n"
                "print('held', flush=True); time.sleep(60)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = snapshot(run)
        proc = pe("train", CONFIG, *SMALL, "epochs=3", "--resume", run, "--max-steps", "22", "-q")
        assert proc.returncode != 0 and f"in use by another pe process (pid {holder.pid})" in proc.stderr
        assert snapshot(run) == before
    finally:
        holder.kill()  # kill -9: the kernel frees the lock, nothing stale is left
        holder.wait()
    proc = pe("train", CONFIG, *SMALL, "epochs=3", "--resume", run, "--max-steps", "22", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-22"
    fd = os.open(run / ".lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when that pe exited
    os.close(fd)


def test_leftovers_of_an_interrupted_save_are_removed_at_the_next_start(run20, tmp_path):
    run = tmp_path / "leftovers"
    subprocess.run(["cp", "-a", str(run20), str(run)], check=True)
    (run / "ckpt" / ".step-21.tmp-abc").mkdir()
    (run / "ckpt" / ".step-21.tmp-abc" / "fc_0.w_0.npy").write_bytes(b"half")
    (run / ".metrics.csv.tmp-xyz").write_text("half")
    proc = pe("train", CONFIG, *SMALL, "epochs=3", "--resume", run, "--max-steps", "21")
    assert proc.returncode == 0, proc.stderr
    assert "interrupted" in proc.stderr
    assert not [p for p in os.listdir(run / "ckpt") if ".tmp-" in p] and not (run / ".metrics.csv.tmp-xyz").exists()
    assert (run / "ckpt" / "last").read_text().strip() == "step-21"


NAN_CONFIG = "tests/nan_case/run.yaml"  # model.yaml line 7: log of values that are mostly negative


def test_check_nan_inf_names_the_first_bad_op_and_its_yaml_line(tmp_path):
    proc = pe("train", NAN_CONFIG, "--check-nan-inf", "--out", tmp_path / "run")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    error = proc.stderr.strip().splitlines()[-1]
    assert error.startswith("pe: error: step 1: op 'log' of layer 'logged' built at model.yaml:7")
    assert "NaN" in error and "'logged.tmp_0'" in error
    assert not (tmp_path / "run").exists()  # failed in its first step: no half-made run
    by_env = pe("train", NAN_CONFIG, "--out", tmp_path / "env", env={"FLAGS_check_nan_inf": "1"})
    assert "(check_nan_inf)" in by_env.stderr and "model.yaml:7" in by_env.stderr


def test_a_non_finite_loss_names_where_it_came_from_without_the_flag(tmp_path):
    proc = pe("train", NAN_CONFIG, "--out", tmp_path / "run")
    assert proc.returncode == 1
    error = proc.stderr.strip().splitlines()[-1]
    assert "the loss 'loss' is nan; the first NaN/Inf: op 'log' of layer 'logged' built at model.yaml:7" in error
    assert "Warning" not in proc.stderr and "encountered" not in proc.stderr  # numpy's warnings: not shown


def test_divergence_never_becomes_the_last_checkpoint(tmp_path):
    """A learning rate that makes the MLP diverge: the run exits non-zero and ckpt/last is a
    checkpoint whose parameters are all finite."""
    run = tmp_path / "div"
    proc = pe("train", CONFIG, *SMALL, "checkpoint.every_steps=2", "optimizer.learning_rate=1e6", "--out", run)
    assert proc.returncode == 1 and "the loss 'loss' is" in proc.stderr, proc.stderr
    assert "is the last good checkpoint" in proc.stderr
    assert "Warning" not in proc.stderr and "overflow" not in proc.stderr  # pe's one line, no numpy noise
    last = (run / "ckpt" / "last").read_text().strip()
    for f in os.listdir(run / "ckpt" / last):
        if f.endswith(".npy"):
            assert np.isfinite(np.load(run / "ckpt" / last / f)).all(), f


def _can_mount_tmpfs():
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(
    not shutil.which("unshare") or not _can_mount_tmpfs(),
    reason="needs unshare and tmpfs mounts (root in a mount namespace) for a real full disk",
)
def test_a_full_disk_is_said_plainly(tmp_path):
    """A 400 KiB tmpfs cannot hold the MLP's first checkpoint: the run stops with 'no space left on
    device' naming the file, and leaves no half-written checkpoint."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=400k tmpfs {disk} && {' '.join(PE)} train {CONFIG} "
        f"{' '.join(SMALL)} --out {disk}/run -q; echo rc=$?; ls -a {disk}/run/ckpt"
    )
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert "rc=1" in proc.stdout, proc.stdout + proc.stderr
    assert "pe: error: no space left on device writing " in proc.stderr and "Traceback" not in proc.stderr
    assert ".tmp-" not in proc.stdout.split("rc=1")[1]  # the half-written checkpoint was removed


def test_a_partly_written_metrics_line_is_dropped_on_resume(run20, tmp_path):
    run = tmp_path / "cut"
    subprocess.run(["cp", "-a", str(run20), str(run)], check=True)
    with open(run / "metrics.jsonl", "a") as f:
        f.write('{"phase": "train", "step": 2')  # a line cut short by a full disk or a kill
    proc = pe("train", CONFIG, *SMALL, "epochs=3", "--resume", run, "--max-steps", "21")
    assert proc.returncode == 0, proc.stderr
    assert "partly written line; dropped" in proc.stderr
    rows = [json.loads(line) for line in open(run / "metrics.jsonl")]
    assert rows[-1]["step"] == 21


def test_resuming_a_finished_run_has_nothing_to_do(run20):
    before = snapshot(run20)
    proc = pe("train", CONFIG, *SMALL, "--resume", run20)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"nothing to do: {run20} already finished at step 20")
    assert snapshot(run20) == before  # not evaluated again, nothing written
