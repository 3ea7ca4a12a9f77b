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

LONG = ["configs/mnist_mlp.yaml", "data.train.limit=256", "data.eval.limit=32", "epochs=1000", "output.curves=false",
        "output.graphs=[]", "-q"]
CAUSES = {"raise": r"RuntimeError: (injected fault in rank 1|rank 1 broke at step 2) \(exit code 1\)",
          "kill": r"killed by signal 9 \(SIGKILL\)",
          "exit": r"exited with code 3 \(no Python error: os\._exit, or a crash in native code\)"}



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
    env = {"PE_FAULT": fault, mark.split("=")[0]: mark.split("=")[1],
           "PYTHONPATH": os.pathsep.join([os.path.join(REPO, "tests", "rank_faults"), REPO,
                                          os.environ.get("PYTHONPATH", "")])}
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
    return subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "pe_cli", "train", *LONG,
                           "build_strategy.num_trainers=2", "--out", str(tmp_path / "run")], cwd=REPO,
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, **env))


# Each launcher once and each fault once (one guard serves all three launchers, so the other six pairs
# of the 3x3 matrix repeat these): the cases, a raise under pe launch and os._exit under --np.
@pytest.mark.parametrize("how, fault", [("launch", "raise"), ("np", "exit"), ("mpiexec", "kill")])
def test_a_failing_rank_stops_every_rank_and_is_named(how, fault, tmp_path):
    proc, took, mark = _run(how, fault, tmp_path)
    assert proc.returncode != 0, proc.stdout + proc.stderr
    named = [line for line in proc.stderr.splitlines() if line.startswith("pe: rank")]
    assert len(named) == 1, proc.stderr
    host = re.escape(socket.gethostname())
    assert re.fullmatch(rf"pe: rank 1 of 2 \(pid \d+ on {host}\) failed: {CAUSES[fault]}; stopping every rank",
                        named[0]), named[0]
    assert took < 60, took          # started, failed about a second into training, every rank ended
    deadline = time.monotonic() + 5
    while _left_behind(mark) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _left_behind(mark) == []
