"""A write counts only when it is checked (issue 88): a checkpoint file cut short under a file-size
limit (``ulimit -f``: Python ignores SIGXFSZ, and numpy's own FILE* writes lose their tail without a
word), a full disk, EIO, or a disk that returns other bytes than it was given (an LD_PRELOAD shim
compiled here) fails ``pe train --resume`` in one line; ``ckpt/last`` still names the earlier
checkpoint, which is byte for byte as it was (``checkpoint.keep: 1`` prunes nothing) and resumes.
Real ``pe`` processes on generated data."""

import os
import resource
import shutil
import subprocess

import numpy as np
import pytest

from tests.cli.test_helpers import PE, REPO, snapshot

# A linear regression over 1,500 inputs: its weight files are 6,128 bytes, whose tail (6,000 bytes of
# data is not a multiple of stdio's 4,096-byte blocks) numpy's FILE* writes buffer; under
# ``ulimit -f 5`` (5,120 bytes) main wrote them short, recorded the short size, pruned step-2, rc 0.
MODEL = """\
name: line
feeds:
  x: {shape: [1500]}
  y: {shape: [1]}
layers:
  - pred: {type: fc, input: x, size: 1}
  - cost: {type: square_error_cost, input: pred, label: y}
  - loss: {type: mean, x: cost}
loss: loss
fetches: [loss]
"""
CONFIG = """\
model: line.yaml
data:
  train: {format: npz, path: points.npz}
  batch_size: 8
optimizer: {type: Adam, learning_rate: 0.01}
epochs: 1
checkpoint: {keep: 1}
fetch: {every: 1}
output: {curves: false}
"""

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* write() to a file whose path holds $SHIM_MATCH: eio -> EIO, enospc -> ENOSPC, flip -> the bytes
   written with the first one changed (a disk that returns other bytes; the count is all of them). */
static ssize_t (*real_write)(int, const void *, size_t);

static int matches(int fd) {
    const char *m = getenv("SHIM_MATCH");
    char link[64], path[4096];
    ssize_t n;
    if (!m) return 0;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    n = readlink(link, path, sizeof path - 1);
    if (n < 0) return 0;
    path[n] = 0;
    return strstr(path, m) != NULL;
}

ssize_t write(int fd, const void *buf, size_t count) {
    const char *mode = getenv("SHIM_MODE");
    if (!real_write) real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (count > 0 && mode && matches(fd)) {
        if (!strcmp(mode, "eio")) { errno = EIO; return -1; }
        if (!strcmp(mode, "enospc")) { errno = ENOSPC; return -1; }
        if (!strcmp(mode, "flip")) {
            char *copy = malloc(count);
            ssize_t n;
            memcpy(copy, buf, count);
            copy[0] ^= 0x5a;
            n = real_write(fd, copy, count);
            free(copy);
            return n;
        }
    }
    return real_write(fd, buf, count);
}
"""


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A finished 2-step run (one checkpoint, step-2, keep: 1) of the regression above."""
    root = tmp_path_factory.mktemp("verified")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 1500)).astype(np.float32)
    np.savez(root / "points.npz", x=x, y=x[:, :3].sum(1, keepdims=True))
    (root / "line.yaml").write_text(MODEL)
    (root / "cfg.yaml").write_text(CONFIG)
    proc = _pe(["train", root / "cfg.yaml", "--out", root / "run", "-q"])
    assert proc.returncode == 0, proc.stderr
    assert (root / "run" / "ckpt" / "last").read_text().strip() == "step-2"
    return root


def _pe(args, env=None, fsize=None):
    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    full_env = dict(os.environ, **(env or {}))
    full_env.pop("PE_DEBUG", None)
    return subprocess.run(
        PE + [str(a) for a in args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env=full_env,
        preexec_fn=limit if fsize else None,
    )


def _resumed_under(base, tmp_path, env=None, fsize=None):
    """``pe train --resume`` of a copy of the base run to epoch 2 (a checkpoint at step 4) under the
    fault; returns (the run copy, the process), once the fault is checked to have lost nothing."""
    run = tmp_path / "run"
    shutil.copytree(base / "run", run, symlinks=True)
    before = snapshot(run / "ckpt" / "step-2")
    proc = _pe(["train", base / "cfg.yaml", "--resume", run, "epochs=2", "-q"], env, fsize)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert (run / "ckpt" / "last").read_text().strip() == "step-2"
    assert sorted(os.listdir(run / "ckpt")) == ["last", "step-2"]  # nothing half-made left beside it
    assert snapshot(run / "ckpt" / "step-2") == before  # the earlier checkpoint is whole
    again = _pe(["train", base / "cfg.yaml", "--resume", run, "epochs=2", "-q"])
    assert again.returncode == 0, again.stderr  # and resumes, to step 4
    assert (run / "ckpt" / "last").read_text().strip() == "step-4"
    return run, lines[0]


def test_a_file_size_limit_fails_the_resume_and_keeps_the_last_checkpoint(base, tmp_path):
    run, line = _resumed_under(base, tmp_path, fsize=5 * 1024)
    assert f"{run}/ckpt/step-4/pred.w_0.npy" in line and "ulimit -f" in line, line


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("no gcc to build the LD_PRELOAD shim that fakes EIO and a full disk")
    folder = tmp_path_factory.mktemp("shim")
    (folder / "shim.c").write_text(SHIM)
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O1", "-o", str(folder / "shim.so"), str(folder / "shim.c"), "-ldl"],
        check=True,
        capture_output=True,
    )
    return str(folder / "shim.so")


@pytest.mark.parametrize(
    "mode, said",
    [
        ("eio", "input/output error"),
        ("enospc", "no space left on device"),
        ("flip", "what was read back differs from what was written"),
    ],
)
def test_a_failing_disk_fails_the_resume_and_keeps_the_last_checkpoint(base, tmp_path, shim, mode, said):
    env = {"LD_PRELOAD": shim, "SHIM_MODE": mode, "SHIM_MATCH": ".step-4.tmp-"}
    run, line = _resumed_under(base, tmp_path, env)
    assert said in line.lower() and f"{run}/ckpt/step-4/" in line, line


def test_sigkill_at_random_moments_always_leaves_a_last_that_loads(tmp_path):
    """kill -9 of `pe train` (then of its resumes) at random moments while it checkpoints every step
    (keep: 2): after each kill, ckpt/last names a checkpoint whose files match its manifest and whose
    state reads, and the run resumes from it to the end."""
    import random
    import signal
    import time

    from pe_cli.io.manifest import manifest_problem
    from pe_cli.run.rundir import Checkpoints, read_state

    rng = random.Random(88)
    run = tmp_path / "run"
    args = [
        "configs/mnist_mlp.yaml",
        "data.train.limit=256",
        "data.eval.limit=32",
        "data.batch_size=32",
        "epochs=400",
        "checkpoint.every_steps=1",
        "checkpoint.every_epochs=0",
        "checkpoint.keep=2",
        "eval.every_epochs=0",
        "fetch.every=1",
        "output.curves=false",
        "-q",
    ]
    env = dict(os.environ)
    env.pop("PE_DEBUG", None)
    steps = []
    for attempt in range(6):
        argv = ["train", *args, "--out", run] if attempt == 0 else ["train", *args, "--resume", run]
        proc = subprocess.Popen(
            PE + [str(a) for a in argv], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 120
        first = steps[-1] if steps else 0
        while time.monotonic() < deadline and proc.poll() is None:  # wait for a checkpoint of this process
            last = Checkpoints(run).last() if run.exists() else None
            if last is not None and read_state(last)["step"] > first:
                break
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.6))  # then a random moment
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == -9, err
        last = Checkpoints(run).last()
        assert last is not None and manifest_problem(last) is None, (attempt, last)
        assert (run / "ckpt" / "last").read_text().strip() == os.path.basename(last)
        steps.append(read_state(last)["step"])
    assert steps == sorted(steps) and steps[-1] > steps[0], steps
    done = _pe(["train", *args, "--resume", run, "--max-steps", str(steps[-1] + 3)])
    assert done.returncode == 0, done.stderr
    assert (run / "ckpt" / "last").read_text().strip() == f"step-{steps[-1] + 3}"
