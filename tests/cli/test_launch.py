"""`pe train --np K` and `pe launch --trainers K` (issue 15, item 3): pe starts the trainer processes
under the mpich wheel's mpiexec itself."""

import glob
import os
import re

import numpy as np
import pytest

from pe_cli.run.launch import mpiexec
from pe_cli.base.errors import PeError
from tests.cli.test_helpers import pe

try:
    mpiexec()
    HAVE_MPI = True
except PeError:
    HAVE_MPI = False
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="no mpiexec (the mpi extra)")
SMALL = ["data.train.limit=256", "data.eval.limit=200", "epochs=1", "output.curves=false"]


@pytest.fixture(scope="module")
def two_devices(tmp_path_factory):
    """The run both process layouts are compared with: one process, 2 devices (one run, shared)."""
    out = tmp_path_factory.mktemp("launch") / "dev2"
    proc = pe("train", "configs/mnist_mlp.yaml", "devices=2", *SMALL, "--out", out, "-q")
    assert proc.returncode == 0, proc.stderr
    return out


@needs_mpi
def test_np_2_equals_two_devices_and_writes_one_run(tmp_path, two_devices):
    two_procs = pe("train", "configs/mnist_mlp.yaml", "--np", "2", *SMALL, "--out", tmp_path / "np2", "-q")
    assert two_procs.returncode == 0, two_procs.stderr
    assert two_procs.stdout.count("run directory:") == 1  # rank 0 alone reports
    a = sorted(glob.glob(str(tmp_path / "np2" / "ckpt" / "step-4" / "*.npy")))
    b = sorted(glob.glob(str(two_devices / "ckpt" / "step-4" / "*.npy")))
    assert [os.path.basename(p) for p in a] == [os.path.basename(p) for p in b] and a
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.load(x), np.load(y), rtol=1e-5, atol=1e-7, err_msg=x)
    assert os.listdir(tmp_path) == ["np2"]


@needs_mpi
def test_np_2_with_two_parameter_servers_equals_two_devices(tmp_path, two_devices):
    cut = ["distributed.mode=pserver", "distributed.pservers=2", "distributed.min_block_size=1000"]
    servers = pe("train", "configs/mnist_mlp.yaml", "--np", "2", *cut, *SMALL, "--out", tmp_path / "ps", "-q")
    assert servers.returncode == 0, servers.stderr
    assert servers.stdout.count("run directory:") == 1  # trainer 0 alone reports
    a = sorted(glob.glob(str(tmp_path / "ps" / "ckpt" / "step-4" / "*.npy")))
    names = [os.path.basename(p) for p in a]
    assert names == ["fc1.b_0.npy", "fc1.w_0.npy", "fc2.b_0.npy", "fc2.w_0.npy", "logits.b_0.npy", "logits.w_0.npy"]
    for x in a:  # the parameters; the optimizer state lives on the servers
        np.testing.assert_allclose(
            np.load(x), np.load(two_devices / "ckpt" / "step-4" / os.path.basename(x)), rtol=1e-5, atol=1e-7, err_msg=x
        )
    assert os.listdir(tmp_path) == ["ps"]
    resumed = pe("train", "configs/mnist_mlp.yaml", "--np", "2", *cut, *SMALL, "--resume", tmp_path / "ps", "-q")
    assert resumed.returncode != 0 and "pserver mode cannot resume" in resumed.stderr


@needs_mpi
def test_launch_runs_a_fluid_script_on_ranks_with_paddles_environment(tmp_path):
    proc = pe("launch", "--trainers", "2", "tests/launch_case/fluid_trainer.py", timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = sorted(re.findall(r"trainer (\d) of 2 at 127\.0\.0\.1:(\d+): ([\d.]+)", proc.stdout))
    assert [(t, port) for t, port, _ in lines] == [("0", "6170"), ("1", "6171")]
    assert lines[0][2] == lines[1][2]  # the same parameters on every trainer


@needs_mpi
def test_launch_runs_parameter_servers_first_then_trainers(tmp_path):
    proc = pe("launch", "--trainers", "2", "--pservers", "2", "tests/launch_case/fluid_pserver.py", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert sorted(re.findall(r"server 127\.0\.0\.1:(\d+) done", proc.stdout)) == ["6170", "6171"]
    lines = sorted(re.findall(r"trainer (\d) of 2 at 127\.0\.0\.1:(\d+): ([\d.]+)", proc.stdout))
    assert [(t, port) for t, port, _ in lines] == [("0", "6172"), ("1", "6173")]
    assert lines[0][2] == lines[1][2]  # the servers' parameters on every trainer


def test_launch_refuses_a_missing_script(tmp_path):
    proc = pe("launch", "--trainers", "2", tmp_path / "nope.py")
    assert proc.returncode == 2 and "no such script" in proc.stderr


@needs_mpi
def test_paddle_distributed_launch_runs_a_trainer_per_selected_device(tmp_path):
    """``pe fluid -m paddle.distributed.launch`` (Fluid 1.8's launcher): one trainer per device of
    --selected_gpus, each with Fluid's environment and its output in LOG_DIR/workerlog.N."""
    proc = pe(
        "fluid",
        "-m",
        "paddle.distributed.launch",
        "--selected_gpus",
        "0,1",
        "--started_port",
        "6190",
        "--log_dir",
        tmp_path,
        "tests/launch_case/fluid_trainer.py",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Configuration Arguments" in proc.stdout
    logs = [(tmp_path / f"workerlog.{i}").read_text() for i in range(2)]
    lines = [re.search(r"trainer (\d) of 2 at 127\.0\.0\.1:(\d+): ([\d.]+)", log).groups() for log in logs]
    assert [(t, port) for t, port, _ in lines] == [("0", "6190"), ("1", "6191")]
    assert lines[0][2] == lines[1][2]  # the same parameters on every trainer
