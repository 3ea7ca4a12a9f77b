"""What a resume checks before it reads or says anything (issue 88, item 6), through real `pe`
processes: the run's lock is taken before its checkpoint is read (main read it first: a damaged
checkpoint's error, or a branch made of a run another process was training); a finished run's
checkpoint given to another model, another optimizer or another run's config is refused, where
main said "nothing to do: already finished" (rc 0)."""

import os
import subprocess
import sys

import pytest

from tests.cli.test_helpers import REPO, pe, snapshot

CONFIG = "configs/mnist_logreg.yaml"
SMALL = ["data.train.limit=64", "data.eval.limit=64", "data.batch_size=32", "epochs=2", "output.curves=false"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("resume_checks") / "run"
    proc = pe("train", CONFIG, *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    return out


def _held(path):
    """A process holding the run's lock (as a pe process writing it would)."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            (
                "import fcntl, os, time\n"
                f"fd = os.open({str(path / '.lock')!r}, os.O_RDWR | os.O_CREAT)\n"
                "fcntl.flock(fd, fcntl.LOCK_EX); os.ftruncate(fd, 0); os.write(fd, f'{os.getpid()}'.encode())\n"
                "print('held', flush=True); time.sleep(60)\n"
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.mark.parametrize("target", ["run", "ckpt/step-2"])
def test_the_lock_is_taken_before_the_checkpoint_is_read(run, tmp_path, target):
    copy = tmp_path / "run"
    subprocess.run(["cp", "-a", str(run), str(copy)], check=True)
    (copy / "ckpt" / "step-4" / "trainer_state.json").write_text("{oops")  # what a reader would trip on
    holder = _held(copy)
    try:
        before = snapshot(copy)
        path = copy if target == "run" else copy / target
        proc = pe("train", CONFIG, "--resume", path, "epochs=3", "-q")
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, proc.stderr
        assert f"{copy} is in use by another pe process (pid {holder.pid})" in lines[0]
        assert snapshot(copy) == before and sorted(os.listdir(tmp_path)) == ["run"]  # no branch made
    finally:
        holder.kill()
        holder.wait()


def _other_run_config(tmp_path):
    """mnist_logreg's config with a model of the same parameters and another activation: another
    run's config, which a resume of this run's checkpoint must not take for its own."""
    model = open(os.path.join(REPO, "models", "logistic_regression.yaml")).read()
    model = model.replace("include: mnist_feeds.yaml", f"include: {os.path.join(REPO, 'models', 'mnist_feeds.yaml')}")
    (tmp_path / "m.yaml").write_text(model.replace("size: 10}", "size: 10, act: relu}"))
    text = open(os.path.join(REPO, CONFIG)).read().replace("../models/logistic_regression.yaml", "m.yaml")
    (tmp_path / "other.yaml").write_text(text.replace("../data/mnist", os.path.join(REPO, "data", "mnist")))
    return tmp_path / "other.yaml"


@pytest.mark.parametrize("case", ["another model", "another optimizer", "another run's config"])
def test_a_finished_run_is_checked_before_nothing_to_do(run, tmp_path, case):
    before = snapshot(run)
    if case == "another model":
        proc = pe("train", "configs/mnist_mlp.yaml", "--resume", run)
        said = 'was trained with model.layers.logits.input "image"'
    elif case == "another optimizer":
        proc = pe("train", CONFIG, "--resume", run, "optimizer.type=Adam")
        said = "the run has finished, but its checkpoint is not this config's"
    else:
        proc = pe("train", _other_run_config(tmp_path), *SMALL, "--resume", run)
        said = "was trained with model.layers.logits.act"
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0 and "nothing to do" not in proc.stdout, proc.stdout + proc.stderr
    assert len(lines) == 1 and said in lines[0], proc.stderr
    assert snapshot(run) == before
