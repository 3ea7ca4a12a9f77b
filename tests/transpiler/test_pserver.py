"""Parameter-server mode (DistributeTranspiler, config.mode 'pserver'): the programs the transpiler
makes, and real ``mpiexec -n P+K`` runs of tests/pserver_worker.py (P servers, K trainers) against
one process training on the same global batches from the same initial parameters."""

from paths import TESTS
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.distributed.pserver_link import poll, wait_seconds
from pe_cli.transpiler import slice_variable

from pserver_worker import batches, build, names
from tests.transpiler.test_distributed import MPIEXEC, _env, needs_mpi

WORKER = os.path.join(TESTS, "pserver_worker.py")


def _start(tmp_path, servers, trainers, mode, slicing, optimizer, steps, *flags, timeout=240):
    out = tmp_path / f"{servers}x{trainers}-{mode}-{slicing}-{optimizer}"
    cmd = [
        MPIEXEC,
        "-n",
        str(servers + trainers),
        sys.executable,
        WORKER,
        str(servers),
        str(trainers),
        mode,
        slicing,
        optimizer,
        str(steps),
        str(out),
        *flags,
    ]
    return out, subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout)


def _run(tmp_path, servers, trainers, mode="sync", slicing="slice", optimizer="sgd", steps=8):
    out, done = _start(tmp_path, servers, trainers, mode, slicing, optimizer, steps)
    assert done.returncode == 0, done.stderr[-3000:]
    return [dict(np.load(f"{out}.trainer{t}.npz")) for t in range(trainers)]


def _one_process(init, optimizer, steps):
    """The same model in one process on the whole global batches, from ``init``'s parameters."""
    main, startup, loss = build(optimizer)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        for n in names(optimizer):
            scope.find_var(n).get_tensor().set(init[f"init/{n}"], fluid.CPUPlace())
        losses = [exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0] for x, y in batches(steps)]
        final = {n: np.array(scope.find_var(n).get_tensor()) for n in names(optimizer)}
    return np.array(losses).ravel(), final


@needs_mpi
@pytest.mark.parametrize(
    "servers,slicing,optimizer",
    [
        (1, "slice", "sgd"),
        (2, "slice", "sgd"),
        (2, "noslice", "momentum"),
        (2, "slice", "adam"),
        (2, "slice", "sgd_sparse"),
        (1, "slice", "adagrad_sparse"),
    ],
)
def test_sync_servers_and_two_trainers_equal_one_process(tmp_path, servers, slicing, optimizer):
    """The _sparse cases: an embedding's row-sparse gradient reaches the servers as rows and values
    (two servers hold 5 rows each) and the result equals one process, whose update is row-sparse."""
    runs = _run(tmp_path, servers, 2, "sync", slicing, optimizer)
    for n in names(optimizer):  # the trainers hold the same parameters, received from the servers
        np.testing.assert_array_equal(runs[0][f"final/{n}"], runs[1][f"final/{n}"], err_msg=n)
        np.testing.assert_array_equal(runs[0][f"init/{n}"], runs[1][f"init/{n}"], err_msg=n)
    losses, final = _one_process(runs[0], optimizer, 8)
    for n in names(optimizer):
        np.testing.assert_allclose(runs[0][f"final/{n}"], final[n], rtol=1e-5, atol=1e-5, err_msg=n)
    np.testing.assert_allclose((runs[0]["losses"] + runs[1]["losses"]) / 2, losses, rtol=1e-5, atol=1e-6)


@needs_mpi
def test_async_mode_converges(tmp_path):
    runs = _run(tmp_path, 2, 2, "async", "slice", "sgd", steps=30)
    for r in runs:
        assert r["losses"][-5:].mean() < 0.5 * r["losses"][:3].mean(), r["losses"]


@needs_mpi
def test_a_failing_trainer_stops_the_servers_and_the_other_trainers(tmp_path):
    start = time.monotonic()
    out, done = _start(tmp_path, 2, 2, "sync", "slice", "sgd", 8, "fail", timeout=60)
    assert time.monotonic() - start < 30
    assert done.returncode != 0 and not os.path.exists(f"{out}.trainer0.npz")
    text = done.stdout + done.stderr
    assert "pe: rank 3 of 4 failed: " in text and "stopping every rank" in text, text[-2000:]


def _bounded_run(cmd, wait, limit=40):
    """Runs ``cmd`` (an mpiexec) with PE_PSERVER_WAIT_SECONDS=``wait``: (seconds, rc, output). Every
    process of the run is killed when it outlives ``limit`` (the test then fails)."""
    start = time.monotonic()
    run = subprocess.Popen(
        cmd,
        env=dict(_env(), PE_PSERVER_WAIT_SECONDS=str(wait)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = run.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)
        run.communicate()
        pytest.fail(f"{' '.join(cmd[-3:])} still waited after {limit} s")
    return time.monotonic() - start, run.returncode, out


@needs_mpi
def test_a_trainer_alive_and_silent_stops_the_server_within_the_bound(tmp_path):
    """Issue 78: a server's wait for a trainer is bounded (PE_PSERVER_WAIT_SECONDS): trainer 1 sleeps
    after its first step; the server names it, its step and the bound, and every rank stops. The
    model's kernels are compiled here first: a first step's compilation (seconds on a cold cache)
    counts in the bound, which is short here."""
    main, startup, loss = build("sgd")
    exe, (x, y) = fluid.Executor(fluid.CPUPlace()), next(batches(1))
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        exe.run(main, feed={"x": x[:6], "y": y[:6]}, fetch_list=[loss])
    cmd = [
        MPIEXEC,
        "-n",
        "3",
        sys.executable,
        WORKER,
        "1",
        "2",
        "sync",
        "slice",
        "sgd",
        "4",
        str(tmp_path / "o"),
        "hang",
    ]
    seconds, rc, out = _bounded_run(cmd, 1.5)
    line = "pserver 0 (127.0.0.1:6174): trainer 1 sent nothing for 1.5 s (PE_PSERVER_WAIT_SECONDS) in step 2; stopping"
    assert rc != 0 and line in out, out[-3000:]
    assert seconds < 30, seconds


_SILENT_SERVER = """
import time
from mpi4py import MPI
if MPI.COMM_WORLD.Get_rank() == 0:      # the server: alive, never serving
    time.sleep(600)
from pe_cli.distributed.pserver_link import trainer_link
trainer_link(["127.0.0.1:6174"], 0, 1).recv("127.0.0.1:6174", 1, (2,), "float32")
"""


@needs_mpi
def test_a_server_alive_and_silent_stops_the_trainer_within_twice_the_bound():
    seconds, rc, out = _bounded_run([MPIEXEC, "-n", "2", sys.executable, "-c", _SILENT_SERVER], 0.5)
    line = (
        "trainer 0: server 0 (127.0.0.1:6174) sent nothing for 1 s (twice PE_PSERVER_WAIT_SECONDS) before "
        "the first step (the initial parameters); stopping"
    )
    assert rc != 0 and line in out, out[-3000:]
    assert seconds < 30, seconds


def test_the_wait_bound_is_read_checked_and_waited_without_spinning():
    assert wait_seconds({}) == 900 and wait_seconds({"PE_PSERVER_WAIT_SECONDS": "2.5"}) == 2.5
    for bad in ("soon", "0", "-1", "inf", "nan"):
        with pytest.raises(PeError, match=f"PE_PSERVER_WAIT_SECONDS='{bad}': give the longest wait"):
            wait_seconds({"PE_PSERVER_WAIT_SECONDS": bad})
    calls, start = [], time.monotonic()
    assert not poll(lambda: calls.append(1), start + 0.2)  # never ready: False at the deadline
    assert 0.2 <= time.monotonic() - start < 1.0
    assert len(calls) < 150, len(calls)  # naps of up to 2 ms, not a spin
    assert poll(lambda: calls.append(1) or len(calls) > 160, None)  # no deadline: until ready


def test_a_program_without_an_optimizer_or_with_a_global_norm_clip_is_refused():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.data("x", [4]), 2))
    with pytest.raises(PeError, match="call optimizer.minimize"):
        fluid.DistributeTranspiler().transpile(0, program=main, startup_program=startup, pservers="a:1", trainers=2)
    with fluid.program_guard(main, startup):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(1.0))
        fluid.optimizer.SGD(0.1).minimize(loss)
    with pytest.raises(PeError, match="reads the values of several parameters"):
        fluid.DistributeTranspiler().transpile(0, program=main, startup_program=startup, pservers="a:1", trainers=2)


def test_blocks_are_whole_rows_of_at_least_the_minimum_size():
    blocks = slice_variable("w", (1000, 1000), 2, 8192)
    assert [(b.name(), b.row0, b.shape) for b in blocks] == [
        ("w.block0", 0, (500, 1000)),
        ("w.block1", 500, (500, 1000)),
    ]
    assert [str(b) for b in blocks] == ["w:0:500000", "w:1:500000"]
    # 30 values, at least 8 per block: 3 blocks of 10, rounded up to whole rows of 3: 12, 12, 6
    assert [b.shape for b in slice_variable("w", (10, 3), 4, 8)] == [(4, 3), (4, 3), (2, 3)]
    assert [b.name() for b in slice_variable("b", (1000,), 2, 8192)] == ["b"]  # too small to cut
    assert [b.name() for b in slice_variable("w", (1000, 1000), 2, 8192, slice_up=False)] == ["w"]


def test_a_row_sparse_gradient_is_cut_and_sent_as_rows_and_values():
    """Fluid's sparse send: the embedding's gradient is cut by split_selected_rows into its servers'
    row blocks and sent row-sparse (never densified to [vocabulary, dim]); each server sums and
    averages the trainers' blocks row-sparse before its sparse sgd."""
    main, startup, _ = build("sgd_sparse")
    config = fluid.DistributeTranspilerConfig()
    config.min_block_size = 16
    t = fluid.DistributeTranspiler(config=config)
    t.transpile(0, program=main, startup_program=startup, pservers="a:1,b:2", trainers=2)
    block = t.get_trainer_program().global_block()
    split = [op for op in block.ops if op.type == "split_selected_rows"]
    assert len(split) == 1 and split[0].attr("height_sections") == [5, 5]
    assert split[0].output("Out") == ["emb@GRAD.block0", "emb@GRAD.block1"]
    assert all(block.var(n).type == fluid.core.VarDesc.VarType.SELECTED_ROWS for n in split[0].output("Out"))
    assert not [op for op in block.ops if op.type == "split_byref" and "emb@GRAD" in op.input_arg_names]
    held = []
    for endpoint in ("a:1", "b:2"):
        server, _ = t.get_pserver_programs(endpoint)
        for name in [n for n in server.global_block().vars if n.startswith("emb@GRAD.block")]:
            assert server.global_block().var(name).type == fluid.core.VarDesc.VarType.SELECTED_ROWS, name
            held.append(name)
            if "trainer_" not in name:
                ops = [
                    op.type
                    for b in server.blocks[1:]
                    for op in b.ops
                    if name in op.input_arg_names + op.output_arg_names
                ]
                assert ops == ["sum", "scale", "sgd"], ops
    assert sorted(n for n in held if "trainer_" not in n) == ["emb@GRAD.block0", "emb@GRAD.block1"]
