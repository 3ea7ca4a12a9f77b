"""The fleet API (issue 58, item 2) on processes `pe launch` starts: a ctr-dnn-like program trained
with train_from_dataset on the parameter-server fleet (1 server + 2 trainers, sync) equals one
process on the interleaved batches; a collective-fleet program on 2 trainers equals one process.
The programs are tests/fleet_case/*.py; each rank's output lands in --log_dir."""
import glob
import os
import re

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.run.launch import mpiexec
from tests.cli.test_helpers import pe

try:
    mpiexec()
    HAVE_MPI = True
except PeError:
    HAVE_MPI = False
pytestmark = pytest.mark.skipif(not HAVE_MPI, reason="no mpiexec (the mpi extra)")
CASES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fleet_case")
SLOTS, VOCAB, DENSE, BATCH, STEPS = 3, 50, 4, 8, 4
ONE_DEVICE = {"CPU_NUM": "1"}


def write_multislot(directory):
    """part-0 and part-1 (one per trainer) of STEPS batches of BATCH lines, and 'local': their
    batches interleaved (trainer 0's batch k, then trainer 1's), for one process with batch 2*BATCH."""
    rng = np.random.default_rng(0)

    def line():
        ids = [rng.integers(0, VOCAB, int(rng.integers(1, 4))) for _ in range(SLOTS)]
        dense = rng.normal(size=DENSE)
        slots = [f"{len(v)} " + " ".join(str(int(i)) for i in v) for v in ids]
        return " ".join(slots + [f"{DENSE} " + " ".join(f"{v:.5f}" for v in dense), f"1 {int(dense.sum() > 0)}"])
    parts = [[line() for _ in range(BATCH * STEPS)] for _ in range(2)]
    for i, lines in enumerate(parts):
        (directory / f"part-{i}").write_text("\n".join(lines) + "\n")
    local = [ln for k in range(STEPS) for lines in parts for ln in lines[k * BATCH:(k + 1) * BATCH]]
    (directory / "local").write_text("\n".join(local) + "\n")


def losses(text):
    return [float(v) for v in re.findall(r"loss=([0-9.]+)", text)]


def assert_same_arrays(a_dir, b_dir):
    names = sorted(os.path.basename(p) for p in glob.glob(str(a_dir / "*.npy")))
    assert names and names == sorted(os.path.basename(p) for p in glob.glob(str(b_dir / "*.npy")))
    for name in names:
        np.testing.assert_allclose(np.load(a_dir / name), np.load(b_dir / name), rtol=1e-5, atol=1e-5, err_msg=name)
    return names


def test_ctr_dnn_on_the_pserver_fleet_equals_one_process(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    write_multislot(data)
    script = os.path.join(CASES, "ctr_dnn.py")
    one = pe("fluid", script, data, tmp_path / "one", "sync", "--local", env=ONE_DEVICE)
    assert one.returncode == 0, one.stderr
    fleet = pe("launch", "--pservers", "1", "--trainers", "2", "--log_dir", tmp_path / "logs", script, data,
               tmp_path / "fleet", "sync", env=ONE_DEVICE)
    assert fleet.returncode == 0, fleet.stderr
    names = assert_same_arrays(tmp_path / "one", tmp_path / "fleet")
    assert "SparseFeatFactors.npy" in names and "fc0.w_0.npy" in names
    infer = [tmp_path / run / "infer" for run in ("one", "fleet")]      # the same inference program
    assert sorted(os.listdir(infer[0])) == sorted(os.listdir(infer[1])) and "SparseFeatFactors" in os.listdir(infer[1])
    assert (infer[0] / "__model__").read_bytes() == (infer[1] / "__model__").read_bytes()
    assert sorted(os.listdir(tmp_path / "logs")) == ["serverlog.0", "workerlog.0", "workerlog.1"]
    per_trainer = [losses((tmp_path / "logs" / f"workerlog.{i}").read_text()) for i in range(2)]
    assert [len(v) for v in per_trainer] == [STEPS, STEPS]
    np.testing.assert_allclose(np.mean(per_trainer, axis=0), losses(one.stdout), rtol=1e-5)


def test_collective_fleet_on_two_trainers_equals_one_process(tmp_path):
    script = os.path.join(CASES, "collective.py")
    one = pe("fluid", script, tmp_path / "one", "--local", env=ONE_DEVICE)
    assert one.returncode == 0, one.stderr
    fleet = pe("launch", "--selected_gpus", "0,1", script, tmp_path / "fleet", env=ONE_DEVICE)
    assert fleet.returncode == 0, fleet.stderr
    names = assert_same_arrays(tmp_path / "one", tmp_path / "fleet")
    assert "h.w_0_velocity_0.npy" in names                  # the optimizer's state too
    assert sorted(os.listdir(tmp_path / "fleet" / "infer")) == sorted(os.listdir(tmp_path / "one" / "infer"))
