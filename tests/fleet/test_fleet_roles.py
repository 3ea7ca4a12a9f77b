"""The fleet API on roles started on their own (issue 58): each role its own `pe fluid` process, no
shared mpiexec; they join through the rendezvous (pe_cli/kernels/rendezvous.py). The role from
Fluid's environment (PaddleCloudRoleMaker): tests/fleet_case/ctr_dnn.py on 1 server + 2 trainers
equals one process (sync), and in async mode the loss falls and every process ends cleanly. The
role given in code (UserDefinedRoleMaker, UserDefinedCollectiveRoleMaker; no PADDLE_* in the
environment): the same equality, on the parameter-server fleet and the collective one."""
import os

import numpy as np
import pytest

from tests.cli.rendezvous_roles import Roles, free_port, none_left, pserver_envs
from tests.fleet.test_fleet_launch import CASES, HAVE_MPI, ONE_DEVICE, STEPS, assert_same_arrays, losses, \
    write_multislot

pytestmark = pytest.mark.skipif(not HAVE_MPI, reason="no mpiexec (the mpi extra)")
CTR, COLLECTIVE = os.path.join(CASES, "ctr_dnn.py"), os.path.join(CASES, "collective.py")
LOOPBACK = ["127.0.0.1"] * 3


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    directory = tmp_path_factory.mktemp("data")
    write_multislot(directory)
    return directory


def _start(clusters):
    """Starts every cluster ([(envs, argvs)]) at once; [[(code, stdout, stderr)] per role] when all end."""
    started = [Roles(envs, None, extra=ONE_DEVICE, argvs=argvs) for envs, argvs in clusters]
    results = [roles.wait(240) for roles in started]
    for roles, outputs in zip(started, results):
        for code, _, err in outputs:
            assert code == 0, err
        assert none_left(roles.mark)
    return results


def test_ctr_dnn_with_roles_from_the_environment_sync_equals_one_process_and_async_learns(data, tmp_path):
    port = free_port()
    sync, asyn = (pserver_envs(LOOPBACK, p) for p in (port, port + 10))
    one, sync_out, async_out = _start([
        ([{}], [[CTR, data, tmp_path / "one", "sync", "--local"]]),
        (sync, [[CTR, data, tmp_path / "sync", "sync"]] * 3),
        (asyn, [[CTR, data, tmp_path / "async", "async"]] * 3)])
    names = assert_same_arrays(tmp_path / "one", tmp_path / "sync")
    assert "SparseFeatFactors.npy" in names
    per_trainer = [losses(out) for _, out, _ in sync_out[1:]]
    assert [len(v) for v in per_trainer] == [STEPS, STEPS]
    np.testing.assert_allclose(np.mean(per_trainer, axis=0), losses(one[0][1]), rtol=1e-5)
    for _, out, _ in async_out[1:]:                      # each trainer's loss falls
        trained = losses(out)
        assert len(trained) == STEPS and trained[-1] < trained[0], trained
    assert os.path.exists(tmp_path / "async" / "fc0.w_0.npy")


def test_roles_given_in_code_join_and_equal_one_process(data, tmp_path):
    port = free_port()
    servers = f"127.0.0.1:{port}"
    workers = f"127.0.0.1:{port + 10},127.0.0.1:{port + 11}"
    ctr = [[CTR, data, tmp_path / "ctr", "sync", "--given", role, index, 2, servers]
           for role, index in (("pserver", 0), ("trainer", 0), ("trainer", 1))]
    collective = [[COLLECTIVE, tmp_path / "coll", "--given", index, workers] for index in (0, 1)]
    one_ctr, ctr_out, _, _ = _start([
        ([{}], [[CTR, data, tmp_path / "one_ctr", "sync", "--local"]]), ([{}] * 3, ctr),
        ([{}], [[COLLECTIVE, tmp_path / "one_coll", "--local"]]), ([{}] * 2, collective)])
    assert_same_arrays(tmp_path / "one_ctr", tmp_path / "ctr")
    assert "h.w_0_velocity_0.npy" in assert_same_arrays(tmp_path / "one_coll", tmp_path / "coll")
    np.testing.assert_allclose(np.mean([losses(out) for _, out, _ in ctr_out[1:]], axis=0), losses(one_ctr[0][1]),
                               rtol=1e-5)
