"""Outputs never destroy (issue 57, item 1): a path given to -o/--out/--onnx/--inference-dir never
replaces a file pe manages in a run directory nor lands in a checkpoint (one line naming a place that
works, the run byte for byte unchanged); every file goes through a temporary name, so kill -9 and a
full disk leave the earlier file whole; paths that cannot take a file are one line. Real `pe`
processes where the command line is what is tested; a real tmpfs for the full and read-only disks."""

import os
import shutil
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

from pe_cli.base.atomic_file import atomic_write
from pe_cli.base.errors import PeError
from pe_cli.data.idx import load_mnist
from pe_cli.run.output_paths import check_output
from tests.cli.test_helpers import PE, REPO, pe, snapshot

CONFIG = os.path.join(REPO, "configs", "mnist_mlp.yaml")
SMALL = ["data.train.limit=64", "data.eval.limit=32", "data.batch_size=32", "data.eval_batch_size=32", "epochs=1"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished 2-step run (checkpoint ckpt/step-2, curves.png) and 5 unlabeled images."""
    root = tmp_path_factory.mktemp("outputs")
    proc = pe("train", CONFIG, *SMALL, "output.curves=true", "--out", root / "run", "-q")
    assert proc.returncode == 0, proc.stderr
    assert (root / "run" / "ckpt" / "step-2" / "trainer_state.json").is_file()
    images, _ = load_mnist(f"{REPO}/data/mnist", "eval")
    np.save(root / "images.npy", images[:5])
    return root


def _commands(root):
    run = root / "run"
    predict = ["predict", CONFIG, *SMALL, "--checkpoint", run, "--data", root / "images.npy", "-o"]
    export = ["export", CONFIG, *SMALL, "-c", run]
    return {
        "predict -o": (predict, run / "ckpt" / "step-2" / "fc1.w_0.npy", "that is inside checkpoint run/ckpt/step-2"),
        "eval --out": (["eval", CONFIG, *SMALL, "-c", run, "--out"], run / "eval.json", "that is run/eval.json"),
        "export --onnx": (export + ["--onnx"], run / "config.yaml", "that is run/config.yaml"),
        "graph -o": (["graph", CONFIG, "-o"], root / "link" / "metrics.csv", "that is run/metrics.csv"),
        "plot -o": (["plot", run, "-o"], run / "ckpt" / ".." / "model.yaml", "that is run/model.yaml"),
        "export --inference-dir": (
            export + ["--inference-dir"],
            run / "ckpt" / "step-2",
            "that is checkpoint run/ckpt/step-2",
        ),
        "export --inference-dir run": (export + ["--inference-dir"], run, "that is the run directory run"),
        "train --out": (
            ["train", CONFIG, *SMALL, "--out"],
            run / "ckpt" / "step-2" / "r",
            "that is inside checkpoint run/ckpt/step-2",
        ),
    }


@pytest.mark.parametrize(
    "case",
    [
        "predict -o",
        "eval --out",
        "export --onnx",
        "graph -o",
        "plot -o",
        "export --inference-dir",
        "export --inference-dir run",
        "train --out",
    ],
)
def test_an_output_over_a_managed_file_is_refused_and_the_run_is_unchanged(trained, case):
    """Through a symlink (graph) and `..` (plot) too: the resolved path is what is checked."""
    if not (trained / "link").exists():
        os.symlink(trained / "run", trained / "link")
    args, target, said = _commands(trained)[case]
    before = snapshot(trained / "run")
    proc = pe(*args, target, cwd=trained)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    option = " ".join(case.split()[:2])
    assert len(lines) == 1 and lines[0].startswith(f"pe: error: pe {option} {target}: {said}"), proc.stderr
    if case == "train --out":  # a run goes beside the run, not in it
        assert lines[0].endswith("; a run directory goes elsewhere, e.g. r") and not (trained / "run-2").exists()
    else:
        assert "; write elsewhere, e.g. run/" in lines[0]
    assert snapshot(trained / "run") == before  # byte for byte, mtimes too


def test_every_managed_entry_is_refused_and_the_place_named_works(trained, monkeypatch):
    """In-process over every managed entry the run has (and the names a run may have): each refusal
    names a place that check_output then accepts; the user's own files in a run are fine."""
    monkeypatch.chdir(trained)
    run = trained / "run"
    may_have = ("parent.json", "config.resumed-step-2.yaml", "graph-train.dot", "fetches/loss-step-2.npy")
    entries = [p for p in run.rglob("*") if p.name != "curves.png"] + [run / n for n in may_have]
    assert {
        "config.yaml",
        "model.yaml",
        "metrics.csv",
        "metrics.jsonl",
        "fetches.npz",
        "eval.json",
        ".lock",
        "last",
        "trainer_state.json",
    } <= {p.name for p in entries}
    for path in entries:
        if path.is_dir():
            continue
        with pytest.raises(PeError, match=r"^pe predict -o .*; write elsewhere, e\.g\. run/predictions\.npz$") as e:
            check_output(str(path), "pe predict -o", "predictions.npz")
        message = str(e.value)
        assert "\n" not in message and "write elsewhere, e.g. " in message, message
        check_output(message.rsplit("e.g. ", 1)[1], "pe predict -o", "predictions.npz")  # works
    for mine in ("run/predictions.npz", "run/curves.png", "run/notes/a.txt", "elsewhere/p.npz"):
        check_output(mine, "pe predict -o", "predictions.npz")
    (trained / "project").mkdir(exist_ok=True)  # a config.yaml alone is not a run
    (trained / "project" / "config.yaml").write_text("model: m.yaml\n")
    check_output("project/config.yaml", "pe predict -o", "predictions.npz")


def test_export_into_existing_places_keeps_their_modes_and_files(trained, tmp_path):
    inf = tmp_path / "inf"
    inf.mkdir(mode=0o750)
    os.chmod(inf, 0o750)
    (inf / "README").write_text("mine\n")
    onnx = tmp_path / "m.onnx"
    onnx.write_bytes(b"old")
    os.chmod(onnx, 0o640)
    proc = pe("export", CONFIG, *SMALL, "-c", trained / "run", "--onnx", onnx, "--inference-dir", inf)
    assert proc.returncode == 0, proc.stderr
    assert oct(os.stat(inf).st_mode & 0o777) == oct(0o750) and (inf / "README").read_text() == "mine\n"
    assert (inf / "__model__").is_file() and oct(os.stat(onnx).st_mode & 0o777) == oct(0o640)
    assert onnx.stat().st_size > 1000


def test_paths_that_cannot_take_a_file_are_one_line(trained, tmp_path):
    cases = [
        (["plot", trained / "run", "-o", tmp_path], "that is a directory; give a file name, e.g. "),
        (
            [
                "predict",
                CONFIG,
                "--checkpoint",
                trained / "run",
                "--data",
                trained / "images.npy",
                "-o",
                trained / "images.npy" / "p.npz",
            ],
            "is a file, not a directory",
        ),
        (
            ["export", CONFIG, "-c", trained / "run", "--inference-dir", trained / "images.npy"],
            "that is a file, not a directory",
        ),
        (["train", CONFIG, 'output.dir="runs/a\\0b"'], "a path cannot hold a NUL character"),
    ]
    for args, said in cases:
        proc = pe(*args, cwd=tmp_path)
        assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert said in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    assert not (tmp_path / "runs").exists()


def test_kill_9_while_writing_leaves_the_earlier_file_whole(tmp_path):
    """The one writer every command uses, killed half-way through a 3 MB file."""
    target = tmp_path / "curves.png"
    target.write_bytes(b"the earlier picture")
    code = (
        "import sys, time\nfrom pe_cli.base.atomic_file import write_file\n"
        "def slow(f):\n    f.write(b'x' * 3_000_000); f.flush(); print('half', flush=True); time.sleep(60)\n"
        "write_file(sys.argv[1], slow)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "half"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert target.read_bytes() == b"the earlier picture"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".curves.png.tmp-")]  # the partial one


def test_a_symlink_is_replaced_its_target_kept_and_a_device_is_written_not_replaced(tmp_path):
    """The rule every writer follows (pe_cli/base/output_rule.py): a write never goes through a link."""
    (tmp_path / "real.npz").write_bytes(b"old")
    os.symlink("real.npz", tmp_path / "link.npz")
    atomic_write(str(tmp_path / "link.npz"), b"new")
    assert not os.path.islink(tmp_path / "link.npz") and (tmp_path / "link.npz").read_bytes() == b"new"
    assert (tmp_path / "real.npz").read_bytes() == b"old"
    atomic_write(os.devnull, b"discarded")  # -o /dev/null: still the device
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def _can_mount_tmpfs():
    if not shutil.which("unshare"):
        return False
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(
    not _can_mount_tmpfs(), reason="needs unshare and tmpfs mounts (root in a mount namespace) for a real full disk"
)
def test_a_full_disk_and_a_read_only_one_leave_earlier_outputs_whole(trained, tmp_path):
    """On a full tmpfs, `pe plot` onto a run's curves.png and `pe predict -o` onto earlier predictions
    fail with one line saying the disk is full, and both earlier files are byte for byte as they were;
    on a read-only tmpfs, predict and export say so in one line."""
    full, ro, run = tmp_path / "full", tmp_path / "ro", trained / "run"
    full.mkdir()
    ro.mkdir()
    np.savez(tmp_path / "old.npz", **{"class": np.arange(5)})  # earlier predictions
    pe_cmd = " ".join(PE)
    predict = f"{pe_cmd} predict {CONFIG} {' '.join(SMALL)} --checkpoint {run} --data {trained}/images.npy"
    script = f"""
mount -t tmpfs -o size=1m tmpfs {full} && mount -t tmpfs -o size=64k,ro tmpfs {ro} || exit 90
mkdir {full}/run && cp {run}/metrics.jsonl {run}/curves.png {full}/run/ && cp {tmp_path}/old.npz {full}/p.npz
dd if=/dev/zero of={full}/fill bs=4k 2>/dev/null
{pe_cmd} plot {full}/run 2>{tmp_path}/plot.err; echo "plot $?"
{predict} -o {full}/p.npz 2>{tmp_path}/predict.err; echo "predict $?"
{predict} -o {ro}/p.npz 2>{tmp_path}/ro.err; echo "ro $?"
{pe_cmd} export {CONFIG} -c {run} --inference-dir {ro}/inf 2>{tmp_path}/rodir.err; echo "rodir $?"
cp {full}/run/curves.png {tmp_path}/after.png && cp {full}/p.npz {tmp_path}/after.npz
ls -a {full} {full}/run
"""
    env = {k: v for k, v in os.environ.items() if k != "PE_DEBUG"}
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300, env=env
    )
    out = proc.stdout
    assert "plot 1" in out and "predict 1" in out and "ro 1" in out and "rodir 1" in out, out + proc.stderr
    for name, path in (("plot", f"{full}/run/curves.png"), ("predict", f"{full}/p.npz")):
        err = (tmp_path / f"{name}.err").read_text()
        assert (
            err.strip() == f"pe: error: no space left on device writing {path}; free some space and write "
            f"it again (an earlier {os.path.basename(path)} there is unchanged)"
        ), err
    assert (tmp_path / "after.png").read_bytes() == (run / "curves.png").read_bytes()
    assert (tmp_path / "after.npz").read_bytes() == (tmp_path / "old.npz").read_bytes()
    assert ".tmp-" not in out  # no partial file left behind
    for name, path in (("ro", f"{ro}/p.npz"), ("rodir", f"{ro}/inf")):
        err = (tmp_path / f"{name}.err").read_text()
        assert len(err.strip().splitlines()) == 1 and f"{ro} is on a read-only file system" in err, err
