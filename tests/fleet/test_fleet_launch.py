"""The fleet API (issue 58) on processes `pe launch` starts, and on roles started on their own (each
its own `pe fluid` process, no shared mpiexec: they join through pe_cli/distributed/rendezvous.py).
A ctr-dnn-like program trained with train_from_dataset on the parameter-server fleet (1 server + 2
trainers, sync) equals one process on the interleaved batches; a collective-fleet program on 2
trainers equals one process. Roles started on their own: with the role from Fluid's environment
(PaddleCloudRoleMaker), sync equals one process and async learns (every process ends cleanly);
with the role given in code (UserDefinedRoleMaker, UserDefinedCollectiveRoleMaker, no PADDLE_* in
the environment), both fleets equal one process. The programs are tests/fleet_case/*.py; the
one-process runs start once, in the background, and every test compares to them."""

import os
import re

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.io.checkpoint import read_saved
from pe_cli.run.launch import mpiexec
from tests.cli.rendezvous_roles import Roles, described, free_port, left_behind, none_left, pserver_envs
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
CTR, COLLECTIVE = os.path.join(CASES, "ctr_dnn.py"), os.path.join(CASES, "collective.py")
LOOPBACK = ["127.0.0.1"] * 3


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
    local = [ln for k in range(STEPS) for lines in parts for ln in lines[k * BATCH : (k + 1) * BATCH]]
    (directory / "local").write_text("\n".join(local) + "\n")


def losses(text):
    return [float(v) for v in re.findall(r"loss=([0-9.]+)", text)]


def assert_same_arrays(a_dir, b_dir):
    """The variables save_params / save_persistables wrote in two directories (Fluid's tensor files) are equal."""
    a, b = (
        {f: v for f, v in read_saved(str(d), str(d), [f for f in os.listdir(d) if os.path.isfile(d / f)]).items()}
        for d in (a_dir, b_dir)
    )
    names = sorted(a)
    assert names and names == sorted(b)
    for name in names:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-5, atol=1e-5, err_msg=name)
    return names


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    directory = tmp_path_factory.mktemp("data")
    write_multislot(directory)
    return directory


@pytest.fixture(scope="module")
def alone(tmp_path_factory, data):
    """``alone(name)``: (output directory, losses) of ctr_dnn.py or collective.py run --local in one
    process; both start at once, in the background, when the first test asks."""
    out = tmp_path_factory.mktemp("alone")
    runs = {
        name: Roles([{}], None, extra=ONE_DEVICE, argvs=[["fluid", script, *args, out / name, *more, "--local"]])
        for name, script, args, more in (("ctr", CTR, [data], ["sync"]), ("collective", COLLECTIVE, [], []))
    }
    done = {}

    def result(name):
        if name not in done:
            ((code, stdout, err),) = runs[name].wait(240)
            assert code == 0, err
            done[name] = (out / name, losses(stdout))
        return done[name]

    yield result
    for roles in runs.values():
        roles.kill()


def _started_on_their_own(clusters):
    """Starts every cluster ([(envs, pe argvs)]) at once; [(code, stdout, stderr)] of each role of each."""
    started = [Roles(envs, None, extra=ONE_DEVICE, argvs=argvs) for envs, argvs in clusters]
    results = [roles.wait(240) for roles in started]
    for roles, outputs in zip(started, results):
        for code, _, err in outputs:
            assert code == 0, err
        assert none_left(roles.mark), described(left_behind(roles.mark))
    return results


def test_ctr_dnn_on_the_pserver_fleet_equals_one_process(alone, data, tmp_path):
    fleet = pe(
        "launch",
        "--pservers",
        "1",
        "--trainers",
        "2",
        "--log_dir",
        tmp_path / "logs",
        CTR,
        data,
        tmp_path / "fleet",
        "sync",
        env=ONE_DEVICE,
    )
    assert fleet.returncode == 0, fleet.stderr
    one, one_losses = alone("ctr")
    names = assert_same_arrays(one, tmp_path / "fleet")
    assert "SparseFeatFactors" in names and "fc0.w_0" in names
    infer = [one / "infer", tmp_path / "fleet" / "infer"]  # the same inference program
    assert sorted(os.listdir(infer[0])) == sorted(os.listdir(infer[1])) and "SparseFeatFactors" in os.listdir(infer[1])
    assert (infer[0] / "__model__").read_bytes() == (infer[1] / "__model__").read_bytes()
    assert sorted(os.listdir(tmp_path / "logs")) == ["serverlog.0", "workerlog.0", "workerlog.1"]
    per_trainer = [losses((tmp_path / "logs" / f"workerlog.{i}").read_text()) for i in range(2)]
    assert [len(v) for v in per_trainer] == [STEPS, STEPS]
    np.testing.assert_allclose(np.mean(per_trainer, axis=0), one_losses, rtol=1e-5)


def test_collective_fleet_on_two_trainers_equals_one_process(alone, tmp_path):
    fleet = pe("launch", "--selected_gpus", "0,1", COLLECTIVE, tmp_path / "fleet", env=ONE_DEVICE)
    assert fleet.returncode == 0, fleet.stderr
    one, _ = alone("collective")
    names = assert_same_arrays(one, tmp_path / "fleet")
    assert "h.w_0_velocity_0" in names  # the optimizer's state too
    assert sorted(os.listdir(tmp_path / "fleet" / "infer")) == sorted(os.listdir(one / "infer"))


def test_roles_from_the_environment_started_on_their_own_sync_equals_one_process_async_learns(alone, data, tmp_path):
    port = free_port()
    passes = 5  # async: the loss of the last pass over the data is lower
    sync, asyn = _started_on_their_own(
        [
            (pserver_envs(LOOPBACK, port), [["fluid", CTR, data, tmp_path / "sync", "sync"]] * 3),
            (
                [dict(env, CTR_PASSES=str(passes)) for env in pserver_envs(LOOPBACK, port + 10)],
                [["fluid", CTR, data, tmp_path / "async", "async"]] * 3,
            ),
        ]
    )
    one, one_losses = alone("ctr")
    assert "SparseFeatFactors" in assert_same_arrays(one, tmp_path / "sync")
    per_trainer = [losses(out) for _, out, _ in sync[1:]]
    assert [len(v) for v in per_trainer] == [STEPS, STEPS]
    np.testing.assert_allclose(np.mean(per_trainer, axis=0), one_losses, rtol=1e-5)
    for _, out, _ in asyn[1:]:  # each async trainer's loss falls
        trained = losses(out)
        assert len(trained) == passes * STEPS, trained
        assert np.mean(trained[-STEPS:]) < np.mean(trained[:STEPS]) - 0.02, trained
    assert os.path.exists(tmp_path / "async" / "fc0.w_0")


def test_roles_given_in_code_started_on_their_own_equal_one_process(alone, data, tmp_path):
    port = free_port()
    servers, workers = f"127.0.0.1:{port}", f"127.0.0.1:{port + 10},127.0.0.1:{port + 11}"
    ctr = [
        ["fluid", CTR, data, tmp_path / "ctr", "sync", "--given", role, index, 2, servers]
        for role, index in (("pserver", 0), ("trainer", 0), ("trainer", 1))
    ]
    collective = [["fluid", COLLECTIVE, tmp_path / "collective", "--given", index, workers] for index in (0, 1)]
    ctr_out, _ = _started_on_their_own([([{}] * 3, ctr), ([{}] * 2, collective)])
    one, one_losses = alone("ctr")
    assert_same_arrays(one, tmp_path / "ctr")
    np.testing.assert_allclose(np.mean([losses(out) for _, out, _ in ctr_out[1:]], axis=0), one_losses, rtol=1e-5)
    assert "h.w_0_velocity_0" in assert_same_arrays(alone("collective")[0], tmp_path / "collective")
