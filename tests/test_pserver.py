"""Parameter-server mode (DistributeTranspiler, config.mode 'pserver'): the programs the transpiler
makes, and real ``mpiexec -n P+K`` runs of tests/pserver_worker.py (P servers, K trainers) against
one process training on the same global batches from the same initial parameters."""
import os
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.errors import PeError
from pe_cli.transpiler import slice_variable

from pserver_worker import GLOBAL_BATCH, batches, build
from test_distributed import MPIEXEC, _env, needs_mpi

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pserver_worker.py")
NAMES = ["w1", "w2", "fc_0.b_0", "fc_1.b_0"]


def _run(tmp_path, servers, trainers, mode="sync", slicing="slice", optimizer="sgd", steps=8, timeout=240):
    out = tmp_path / f"{servers}x{trainers}-{mode}-{slicing}-{optimizer}"
    cmd = [MPIEXEC, "-n", str(servers + trainers), sys.executable, WORKER, str(servers), str(trainers), mode,
           slicing, optimizer, str(steps), str(out)]
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return [dict(np.load(f"{out}.trainer{t}.npz")) for t in range(trainers)]


def _one_process(init, optimizer, steps):
    """The same model in one process on the whole global batches, from ``init``'s parameters."""
    main, startup, loss = build(optimizer)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        for n in NAMES:
            scope.find_var(n).get_tensor().set(init[f"init/{n}"], fluid.CPUPlace())
        losses = [exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0] for x, y in batches(steps)]
        final = {n: np.array(scope.find_var(n).get_tensor()) for n in NAMES}
    return np.array(losses).ravel(), final


@needs_mpi
@pytest.mark.parametrize("servers,slicing,optimizer", [(1, "slice", "sgd"), (2, "slice", "sgd"),
                                                       (2, "noslice", "momentum"), (2, "slice", "adam")])
def test_sync_servers_and_two_trainers_equal_one_process(tmp_path, servers, slicing, optimizer):
    runs = _run(tmp_path, servers, 2, "sync", slicing, optimizer)
    for n in NAMES:                 # the trainers hold the same parameters, received from the servers
        np.testing.assert_array_equal(runs[0][f"final/{n}"], runs[1][f"final/{n}"], err_msg=n)
        np.testing.assert_array_equal(runs[0][f"init/{n}"], runs[1][f"init/{n}"], err_msg=n)
    losses, final = _one_process(runs[0], optimizer, 8)
    for n in NAMES:
        np.testing.assert_allclose(runs[0][f"final/{n}"], final[n], rtol=1e-5, atol=1e-5, err_msg=n)
    np.testing.assert_allclose((runs[0]["losses"] + runs[1]["losses"]) / 2, losses, rtol=1e-5, atol=1e-6)


@needs_mpi
def test_async_mode_converges(tmp_path):
    runs = _run(tmp_path, 2, 2, "async", "slice", "sgd", steps=30)
    for r in runs:
        assert r["losses"][-5:].mean() < 0.5 * r["losses"][:3].mean(), r["losses"]
