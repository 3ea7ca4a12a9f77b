"""Every rank's failure stops every rank (issue 57, item 4): under `pe train --np 2`, `pe launch` and
the user's own `mpiexec -n 2 pe train`, an exception, kill -9 or os._exit(3) in rank 1 ends every
process within 30 s, with one line naming the rank, its host and the cause. Real MPI (the mpich
wheel's mpiexec); rank 1's fault comes from the script (pe launch) or from tests/rank_faults/
sitecustomize.py (pe train), while rank 0 would train for ever (1000 epochs)."""

import os
import re
import socket
import sys
import time
import uuid

import pytest

from pe_cli.base.errors import PeError
from pe_cli.run.launch import mpiexec
from tests.cli.test_helpers import REPO, pe

try:
    MPIEXEC = mpiexec()
except PeError:
    MPIEXEC = None
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec (the mpi extra)")

LONG = [
    "configs/mnist_mlp.yaml",
    "data.train.limit=256",
    "data.eval.limit=32",
    "epochs=1000",
    "output.curves=false",
    "output.graphs=[]",
    "-q",
]
CAUSES = {
    "raise": r"RuntimeError: (injected fault in rank 1|rank 1 broke at step 2) \(exit code 1\)",
    "kill": r"killed by signal 9 \(SIGKILL\)",
    "exit": r"exited with code 3 \(no Python error: os\._exit, or a crash in native code\)",
}


def _left_behind(mark):
    """Processes still alive whose environment holds ``mark`` (what this test started)."""
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if mark.encode() in f.read():
                    left.append(pid)
        except OSError:
            pass
    return left


def _run(how, fault, tmp_path):
    mark = f"PE_TEST_MARK={uuid.uuid4().hex}"
    env = {
        "PE_FAULT": fault,
        mark.split("=")[0]: mark.split("=")[1],
        "PYTHONPATH": os.pathsep.join(
            [os.path.join(REPO, "tests", "rank_faults"), REPO, os.environ.get("PYTHONPATH", "")]
        ),
    }
    start = time.monotonic()
    if how == "launch":
        proc = pe("launch", "--trainers", "2", "tests/launch_case/rank_fault.py", fault, env=env, timeout=120)
    elif how == "np":
        proc = pe("train", *LONG, "--np", "2", "--out", tmp_path / "run", env=env, timeout=120)
    else:
        proc = pe_under_mpiexec(env, tmp_path)
    return proc, time.monotonic() - start, mark


def pe_under_mpiexec(env, tmp_path):
    import subprocess

    return subprocess.run(
        [
            MPIEXEC,
            "-n",
            "2",
            sys.executable,
            "-m",
            "pe_cli",
            "train",
            *LONG,
            "build_strategy.num_trainers=2",
            "--out",
            str(tmp_path / "run"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **env),
    )


# Each launcher once and each fault once (one guard serves all three launchers, so the other six pairs
# of the 3x3 matrix repeat these): the cases, a raise under pe launch and os._exit under --np.
@pytest.mark.parametrize("how, fault", [("launch", "raise"), ("np", "exit"), ("mpiexec", "kill")])
def test_a_failing_rank_stops_every_rank_and_is_named(how, fault, tmp_path):
    proc, took, mark = _run(how, fault, tmp_path)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    named = [line for line in proc.stderr.splitlines() if line.startswith("pe: rank")]
    assert len(named) == 1, proc.stderr
    host = re.escape(socket.gethostname())
    assert re.fullmatch(
        rf"pe: rank 1 of 2 \(pid \d+ on {host}\) failed: {CAUSES[fault]}; stopping every rank", named[0]
    ), named[0]
    assert took < 60, took  # started, failed about a second into training, every rank ended
    deadline = time.monotonic() + 5
    while _left_behind(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _left_behind(mark) == []


def test_a_rank_killed_before_its_guard_speaks_is_named(tmp_path):
    """kill -9 of a rank's guard itself (what the OOM killer does): main's `pe train --np 2` ended with
    mpiexec's exit code 9 and not a word (issue 88); now one line names the rank, its pid and host."""
    import glob
    import signal
    import subprocess

    mark = f"PE_TEST_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, TMPDIR=str(tmp_path), **{mark.split("=")[0]: mark.split("=")[1]})
    env.pop("PE_DEBUG", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "pe_cli", "train", *LONG, "--np", "2", "--out", str(tmp_path / "run")],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline, note = time.monotonic() + 90, None
        while time.monotonic() < deadline and proc.poll() is None:
            notes = glob.glob(str(tmp_path / "pe-ranks-*" / "rank-1"))
            if notes and (tmp_path / "run" / "metrics.jsonl").exists():  # training: both ranks are up
                note = open(notes[0]).read().split()
                break
            time.sleep(0.1)
        assert note is not None, "no rank noted itself"
        os.kill(int(note[2]), signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # what this test started, mpiexec and its ranks with it
            proc.wait(timeout=30)
    lines = err.strip().splitlines()
    assert proc.returncode != 0 and len(lines) == 1, err
    assert lines[0].startswith(
        f"pe: rank 1 of 2 (pid {note[2]} on {socket.gethostname()}) ended without a word: "
        f"its process was killed (SIGKILL"
    ), lines[0]
    assert glob.glob(str(tmp_path / "pe-ranks-*")) == []
    deadline = time.monotonic() + 5
    while _left_behind(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _left_behind(mark) == []
