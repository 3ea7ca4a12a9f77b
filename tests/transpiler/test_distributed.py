"""Training over several processes (MPI, collective mode): real ``mpiexec -n K`` runs of
tests/dist_worker.py against one process on the same global batches, the cross-process nodes of the
multi-device graph, and the failures (a wrong launch, a failing rank) ending every rank quickly."""

from paths import REPO, TESTS
import json
import os
import signal
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.compiler import BuildStrategy
from pe_cli.compiler.ssa_graph import PROCESS_ALL_REDUCE, build_ssa_graph
from pe_cli.base.errors import PeError

from parallel_nets import build

ROOT = Path(REPO)
WORKER = Path(TESTS) / "dist_worker.py"
MPIEXEC = shutil.which("mpiexec", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
try:
    import mpi4py  # noqa: F401

    needs_mpi = pytest.mark.skipif(MPIEXEC is None, reason="mpiexec is not on PATH (the mpich wheel)")
except ImportError:
    needs_mpi = pytest.mark.skip(reason="the mpi extra (mpi4py, mpich) is not installed: pip install '.[mpi]'")


def _env():
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), OMP_NUM_THREADS="1"
    )


def _train(tmp_path, model, trainers, devices, *flags, timeout=240):
    """Runs the worker (under mpiexec when trainers > 1); returns (mean losses over the trainers,
    trainer 0's parameters, every trainer's parameters)."""
    out = tmp_path / f"{model}-{trainers}x{devices}-{'-'.join(flags)}"
    cmd = [sys.executable, str(WORKER), model, str(trainers), str(devices), str(out), *flags]
    if trainers > 1:
        cmd = [MPIEXEC, "-n", str(trainers)] + cmd
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    runs = [dict(np.load(f"{out}.{r}.npz")) for r in range(trainers)]
    losses = np.mean([r.pop("losses") for r in runs], axis=0)
    return losses, runs[0], runs


def _close(a, b, tol):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_allclose(a[k], b[k], rtol=tol, atol=tol, err_msg=k)


# -- the graph --------------------------------------------------------------------------------------
def test_graph_has_one_process_all_reduce_per_gradient_or_one_bucket():
    main, _, loss = build()
    grads = len(main.all_parameters())
    g = build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(num_trainers=2, trainer_id=1), loss.name)
    assert g.count(PROCESS_ALL_REDUCE) == grads
    node = next(n for n in g.ops if n.kind == PROCESS_ALL_REDUCE)
    assert node.attrs["trainers"] == 2 and "2 processes" in node.label()
    scale = next(n for n in g.ops if n.kind == "scale_loss_grad")
    assert scale.attrs["scale"] == 0.25  # 2 devices x 2 trainers
    fused = build_ssa_graph(
        main, fluid.cpu_places(1), BuildStrategy(num_trainers=3, trainer_id=0, fuse_all_reduce_ops=True), loss.name
    )
    buckets = [n for n in fused.ops if n.kind == PROCESS_ALL_REDUCE]
    assert len(buckets) == 1 and len(buckets[0].attrs["vars"]) == grads
    # the bucket runs before every optimizer op that reads a gradient
    first_update = min(i for i, n in enumerate(fused.ops) if n.op is not None and n.op.type == "sgd")
    assert fused.ops.index(buckets[0]) < first_update
    assert build_ssa_graph(main, fluid.cpu_places(2), BuildStrategy(), loss.name).count(PROCESS_ALL_REDUCE) == 0
    # one device per process (pe train --np K): one bucket without the option too, as its nodes run one
    # after another and a collective per gradient would overlap nothing
    one = build_ssa_graph(main, fluid.cpu_places(1), BuildStrategy(num_trainers=2, trainer_id=0), loss.name)
    assert [len(n.attrs["vars"]) for n in one.ops if n.kind == PROCESS_ALL_REDUCE] == [grads]


def test_graph_drawing_shows_the_process_all_reduce(tmp_path):
    from pe_cli.compiler.graphviz import to_dot

    main, _, loss = build()
    g = build_ssa_graph(main, fluid.cpu_places(1), BuildStrategy(num_trainers=2, trainer_id=0), loss.name)
    assert "all_reduce x2 processes" in to_dot(g)


# -- real processes ---------------------------------------------------------------------------------
@needs_mpi
def test_two_trainers_of_one_device_equal_one_process_of_two(tmp_path):
    one_losses, one, _ = _train(tmp_path, "mlp", 1, 2)
    two_losses, two, runs = _train(tmp_path, "mlp", 2, 1)
    _close(two, one, 1e-6)
    _close(runs[1], runs[0], 0)  # every trainer holds the same parameters, to the bit
    np.testing.assert_allclose(two_losses, one_losses, rtol=1e-5, atol=1e-6)
    full_losses, full, _ = _train(tmp_path, "mlp", 1, 1)  # one device on the whole batch
    _close(two, full, 1e-5)


@needs_mpi
@pytest.mark.parametrize("how", [("fuse",), ("reduce",), ("reduce", "fuse")])
def test_two_trainers_of_two_devices_equal_one_process_of_four(tmp_path, how):
    one_losses, one, _ = _train(tmp_path, "mlp", 1, 4, "momentum")
    two_losses, two, runs = _train(tmp_path, "mlp", 2, 2, "momentum", *how)
    _close(two, one, 1e-5)
    _close(runs[1], runs[0], 0)
    np.testing.assert_allclose(two_losses, one_losses, rtol=1e-5, atol=1e-6)


@needs_mpi
def test_three_trainers_equal_one_process_of_three_devices(tmp_path):
    one_losses, one, _ = _train(tmp_path, "mlp", 1, 3, "momentum")
    three_losses, three, runs = _train(tmp_path, "mlp", 3, 1, "momentum", "fuse")
    _close(three, one, 1e-5)
    _close(runs[2], runs[0], 0)
    np.testing.assert_allclose(three_losses, one_losses, rtol=1e-5, atol=1e-6)


@needs_mpi
def test_lenet_through_the_transpiler_equals_one_process(tmp_path):
    one_losses, one, _ = _train(tmp_path, "lenet", 1, 2)
    two_losses, two, _ = _train(tmp_path, "lenet", 2, 1, "transpiler")
    _close(two, one, 1e-5)
    np.testing.assert_allclose(two_losses, one_losses, rtol=1e-5, atol=1e-6)


def _stopped(tmp_path, flag, **env):
    """Runs 2 trainers where trainer 1 fails as ``flag`` says; every rank must be gone within 30 s.
    Returns what mpiexec printed."""
    start = time.monotonic()
    done = subprocess.run(
        [MPIEXEC, "-n", "2", sys.executable, str(WORKER), "mlp", "2", "1", str(tmp_path / "x"), flag],
        env=dict(_env(), **env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert time.monotonic() - start < 30
    assert done.returncode != 0 and not (tmp_path / "x.0.npz").exists()  # rank 0 never finished
    return done.stdout + done.stderr


@needs_mpi
def test_a_failing_trainer_stops_every_rank_with_its_name(tmp_path):
    out = _stopped(tmp_path, "fail")
    assert "pe: rank 1 of 2 failed: " in out and "stopping every rank" in out


@needs_mpi
def test_a_killed_trainer_stops_every_rank(tmp_path):
    out = _stopped(tmp_path, "kill")
    assert "BAD TERMINATION" in out and "signal 9" in out


@needs_mpi
def test_a_stalled_trainer_is_reported_by_the_stall_inspector_and_every_rank_stops(tmp_path):
    out = _stopped(tmp_path, "hang", PE_STALL_SECONDS="5")
    report = next(line for line in out.splitlines() if line.startswith("pe: stall: "))
    assert "rank(s) 0 have waited" in report and "which rank(s) 1 never reached" in report, report
    assert "all_reduce over 2 trainer processes of" in report and "rank 1 last entered collective #" in report


@needs_mpi
def test_trainers_whose_programs_differ_stop_with_one_line_naming_the_rank_and_the_variable(tmp_path):
    """Trainer 1's last fc has 5 classes where trainer 0's has 4: the broadcast of the parameters failed
    inside MPI ("message sizes do not match", a stack of MPICH's internals, MPICH's banner); under pe's
    rank guard it is one line naming the rank and the variable, and nothing else."""
    from tests.cli.test_helpers import PE

    done = subprocess.run(
        [MPIEXEC, "-n", "2", *PE, "fluid", str(WORKER), "mlp", "2", "1", str(tmp_path / "x"), "differ"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("pe: trainer rank 1 of 2 failed: ") and done.stderr.count("\n") == 1, done.stderr
    assert (
        "the trainers' programs differ: in parameters from trainer 0, rank 0 has 'fc_1.b_0' [4] float32 "
        "where rank 1 has 'fc_1.b_0' [5] float32" in done.stderr
    )
    assert "MPI" not in done.stdout + done.stderr


@needs_mpi
def test_a_launch_with_another_number_of_processes_is_refused(tmp_path):
    done = subprocess.run(
        [MPIEXEC, "-n", "3", sys.executable, str(WORKER), "mlp", "2", "1", str(tmp_path / "x")],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "num_trainers=2 but mpiexec started 3 process(es)" in done.stderr


# -- pe train under mpiexec -------------------------------------------------------------------------
SMALL = [
    "data.train.limit=320",
    "data.eval.limit=200",
    "data.batch_size=32",
    "data.eval_batch_size=100",
    "epochs=1",
    "fetch.every=4",
    "output.curves=false",
]


def _pe_train(*args, mpi=None, timeout=300):
    cmd = [sys.executable, "-m", "pe_cli", "train", str(ROOT / "configs" / "mnist_mlp.yaml"), *SMALL, *map(str, args)]
    if mpi:
        cmd = [MPIEXEC, "-n", str(mpi)] + cmd
    return subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _ckpt(run):
    ckpt = run / "ckpt" / (run / "ckpt" / "last").read_text().strip()
    return {f.name: np.load(f) for f in sorted(ckpt.glob("*.npy"))}


@needs_mpi
def test_pe_train_on_two_processes_equals_two_devices_and_writes_one_run_directory(tmp_path):
    one = _pe_train("devices=2", "--out", tmp_path / "one")
    assert one.returncode == 0, one.stderr[-2000:]
    two = _pe_train("build_strategy.num_trainers=2", "--out", tmp_path / "runs" / "two", mpi=2)
    assert two.returncode == 0, two.stderr[-2000:]
    _close(_ckpt(tmp_path / "runs" / "two"), _ckpt(tmp_path / "one"), 1e-5)
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["two"]  # rank 1 wrote nothing here
    assert two.stdout.count("run directory:") == 1  # rank 0 reports
    rows = lambda run: [line.split(",")[:5] for line in (run / "metrics.csv").read_text().splitlines()]  # noqa: E731
    assert rows(tmp_path / "runs" / "two") == rows(tmp_path / "one")  # the global batch's metrics


@needs_mpi
def test_pe_train_names_the_key_when_the_process_count_differs(tmp_path):
    done = _pe_train("--out", tmp_path / "x", mpi=2, timeout=120)
    assert done.returncode != 0
    assert "build_strategy.num_trainers: mpiexec started 2 processes but num_trainers is 1" in done.stderr
    done = _pe_train("build_strategy.num_trainers=2", "--out", tmp_path / "x", timeout=120)
    assert done.returncode != 0
    assert "num_trainers=2 but mpiexec started 1 process(es)" in done.stderr
    assert not (tmp_path / "x").exists()


def test_process_all_reduces_run_in_one_order_on_every_rank():
    main, _, loss = build()
    strategy = BuildStrategy(num_trainers=2, trainer_id=0, reduce_strategy=BuildStrategy.ReduceStrategy.Reduce)
    g = build_ssa_graph(main, fluid.cpu_places(2), strategy, loss.name)
    nodes = [n for n in g.ops if n.kind == PROCESS_ALL_REDUCE]
    assert len(nodes) > 1
    for before, after in zip(nodes, nodes[1:]):
        assert any(v.is_dep and v.producer is before for v in after.inputs)


# -- DistributeTranspiler ---------------------------------------------------------------------------
def _transpiler(mode="nccl2"):
    config = fluid.DistributeTranspilerConfig()
    config.mode = mode
    return fluid.DistributeTranspiler(config=config)


def test_transpiler_records_the_trainers_in_collective_mode():
    main, startup, loss = build()
    t = _transpiler("collective")
    t.transpile(1, program=main, startup_program=startup, trainers="a:1,b:2", current_endpoint="b:2")
    assert t.get_trainer_program() is main
    assert main._trainers_endpoints == ["a:1", "b:2"] and main._trainer_id == 1
    t2 = _transpiler()
    t2.transpile(0, program=main, startup_program=startup, workers=["a:1", "b:2"], current_endpoint="a:1")
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    from pe_cli.executor.compiled import trainers_strategy

    strategy = trainers_strategy(compiled)
    assert (strategy.num_trainers, strategy.trainer_id) == (2, 0)


def test_transpiler_errors_are_one_line():
    main, startup, _ = build()
    with pytest.raises(PeError, match="current_endpoint 'a:1' is not trainer 1's endpoint 'b:2'"):
        _transpiler().transpile(1, program=main, startup_program=startup, trainers="a:1,b:2", current_endpoint="a:1")
    with pytest.raises(PeError, match=r"trainer_id must be an integer in \[0, 2\)"):
        _transpiler().transpile(2, program=main, startup_program=startup, trainers="a:1,b:2", current_endpoint="a:1")
    with pytest.raises(PeError, match="trainers must be the trainers' endpoints"):
        _transpiler().transpile(0, program=main, startup_program=startup, trainers=2, current_endpoint="a:1")
    with pytest.raises(PeError, match="in pserver mode: trainers must be the number of trainers"):
        _transpiler("pserver").transpile(0, program=main, pservers="a:1", trainers="a:1,b:2")
    with pytest.raises(PeError, match="mode must be 'nccl2', 'collective' or 'pserver'"):
        _transpiler("ring").transpile(0, program=main, trainers="a:1", current_endpoint="a:1")
    with pytest.raises(PeError, match="call transpile"):
        _transpiler().get_trainer_program()


def test_dispatchers_place_blocks_on_servers():
    from pe_cli.fluid.transpiler import HashName, RoundRobin

    config = fluid.DistributeTranspilerConfig()
    assert (config.slice_var_up, config.split_method, config.min_block_size) == (True, RoundRobin, 8192)
    rr = RoundRobin("a:1,b:2")
    assert rr.dispatch(["w", "x", "y"]) == ["a:1", "b:2", "a:1"] and rr.dispatch(["z"]) == ["b:2"]
    rr.reset()
    assert rr.dispatch(["z"]) == ["a:1"]
    hashed = HashName(["a:1", "b:2", "c:3"]).dispatch(["fc_0.w_0", "fc_0.b_0", "fc_1.w_0"])
    assert hashed == HashName(["a:1", "b:2", "c:3"]).dispatch(["fc_0.w_0", "fc_0.b_0", "fc_1.w_0"])
    assert set(hashed) <= {"a:1", "b:2", "c:3"}


def _rank_pid(marker, rank):
    """The pid of the trainer process of ``rank`` whose command line holds ``marker``."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if marker.encode() in cmdline and b"pe_cli" in cmdline and f"PMI_RANK={rank}".encode() in env:
            return int(pid)
    return None


@needs_mpi
def test_ctrl_c_on_one_rank_stops_every_rank_with_a_checkpoint(tmp_path):
    out = tmp_path / "run"
    cmd = [
        MPIEXEC,
        "-n",
        "2",
        sys.executable,
        "-m",
        "pe_cli",
        "train",
        str(ROOT / "configs" / "mnist_mlp.yaml"),
        "data.train.limit=4000",
        "data.eval.limit=100",
        "data.batch_size=8",
        "fetch.every=1",
        "epochs=1",
        "build_strategy.num_trainers=2",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while not ((out / "metrics.csv").exists() and len((out / "metrics.csv").read_text().splitlines()) > 3):
            assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()[1][-2000:]
            time.sleep(0.2)
        pid = _rank_pid(str(out), 1)
        assert pid is not None
        os.kill(pid, signal.SIGINT)  # rank 1 alone: it must not stop while rank 0 goes on
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err[-2000:]
    state = json.loads((out / "ckpt" / (out / "ckpt" / "last").read_text().strip() / "trainer_state.json").read_text())
    assert 3 < state["step"] < 250


def test_pe_graph_ssa_draws_the_process_all_reduce(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pe_cli",
            "graph",
            str(ROOT / "configs" / "mnist_mlp.yaml"),
            "--ssa",
            "build_strategy.num_trainers=2",
            "-o",
            str(tmp_path / "ssa.dot"),
        ],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert "all_reduce x2 processes" in (tmp_path / "ssa.dot").read_text()
