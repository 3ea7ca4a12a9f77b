"""The benchmarks still run against the code (they are not run in full here: they measure speed,
which tests never assert): every script loads, and bench_cpu.py's pe model trains a few steps."""

import glob
import json
import os
import runpy
import subprocess
import sys
from unittest import mock

import pytest

from tests.cli.test_helpers import REPO

SCRIPTS = sorted(glob.glob(os.path.join(REPO, "benchmarks", "*.py")))


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_script_loads(script):
    with mock.patch.dict(os.environ):  # a script may set thread variables at import: not for later tests
        runpy.run_path(script, run_name="loaded_by_a_test")  # top-level imports and definitions


def test_bench_cpu_models_train_through_the_busy_threads_worker():
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "busy_threads.py"), "--worker", "seed", "--steps", "3"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    per_step_ms, median_ms = json.loads(proc.stdout.strip().splitlines()[-1])  # time per step, median step
    assert per_step_ms > 0 and median_ms > 0


@pytest.mark.parametrize("model, batch", [("lstm", 16), ("ctr", 32)])
def test_bench_sequence_and_sparse_models_train_the_same_on_one_and_two_devices(model, batch):
    """The LSTM row's pe model (dynamic_lstm over a LoD batch of 10-40 steps; 2 devices each given whole
    sequences) and the sparse CTR row's (8 is_sparse tables, lazy Adam; each of 2 devices updating the
    tables it owns in place): the loss falls, and 2 CPU devices follow 1 within float32 rounding."""
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        from bench_models import PeModel
    finally:
        sys.path.pop(0)
    one, two = PeModel(model, batch, 1), PeModel(model, batch, 2)
    losses_one = [one.step() for _ in range(5)]
    losses_two = [two.step() for _ in range(5)]
    assert losses_one[-1] < losses_one[0]
    assert max(abs(a - b) for a, b in zip(losses_one, losses_two)) < 1e-5 * abs(losses_one[0])


@pytest.mark.parametrize("model", ["lstm", "ctr"])
def test_planned_step_fresh_batches_give_new_lengths_every_step(model):
    """planned_step.py --fresh-batches: each batch has its own LoD (no signature comes twice, as real data),
    the fixed batch's size; a model without sequences is refused in one line."""
    script = runpy.run_path(os.path.join(REPO, "benchmarks", "planned_step.py"), run_name="loaded_by_a_test")
    feeds = script["fresh_feeds"](model, 3)
    keys = [sorted(name for name in feed if name != "label") for feed in feeds]
    assert keys[0] and keys[0] == keys[1] == keys[2]
    lods = [tuple(tuple(map(tuple, feed[name].lod())) for name in keys[0]) for feed in feeds]
    assert len(set(lods)) == 3
    assert all(len(feed["label"]) == script["MODELS"][model] for feed in feeds)
    with pytest.raises(SystemExit, match="mlp has no sequences"):
        script["fresh_feeds"]("mlp", 1)


def test_bench_fused_configuration_trains_as_the_default_one():
    """The 'pe 1 dev fused' row (a CompiledProgram with bench_cpu.FUSED's build strategy) trains the
    MLP and the seed model with the default row's losses, to the bit, with fused ops."""
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        from bench_cpu import FUSED
        from bench_models import PeModel, strategy_of
    finally:
        sys.path.pop(0)
    for model in ("mlp", "seed"):
        plain, fused = PeModel(model, 16, 1), PeModel(model, 16, 1, strategy_of(FUSED))
        assert [plain.step() for _ in range(3)] == [fused.step() for _ in range(3)]
        assert any(changes for _, changes in fused.program._passed[3]), "the pass changed nothing"


def test_op_gap_groups_pe_kernel_times_by_kind():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    import op_gap

    with mock.patch.dict(os.environ):
        times = op_gap.side("pe", "seed", 1, 2, False)
    assert {"mul", "momentum", "mean"} <= set(times) and all(ms > 0 for ms in times.values())
    kinds = op_gap.by_kind(times, 0)
    assert kinds["GEMMs (fc)"] >= times["mul"] > 0 and kinds["optimizer"] == times["momentum"]
    assert abs(sum(kinds.values()) - sum(times.values())) < 1e-9  # every op counted once


def test_onednn_ab_times_a_model_on_both_convolution_paths():
    proc = subprocess.run(
        [
            sys.executable,
            os.path.join(REPO, "benchmarks", "onednn_ab.py"),
            "--model",
            "lenet",
            "--rounds",
            "1",
            "--threads",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.strip().startswith("pe's own paths") for line in lines)
    assert any(line.strip().startswith("oneDNN ") for line in lines)
    assert float(lines[-1].split(":")[1]) > 0


def test_onednn_time_sums_the_resnets_primitives_by_kind():
    from pe_cli.kernels.cpu.runtime import onednn as _onednn

    if _onednn.library() is None:
        pytest.skip("oneDNN is not installed here (the onednn extra)")
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "onednn_time.py"), "--model", "resnet", "--steps", "1"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {line[:46].strip(): [float(v) for v in line[46:].split()] for line in proc.stdout.splitlines()[1:]}
    # the ResNet's 12 block convolutions and 2 shortcuts (its 3-channel stem stays on pe's paths)
    for direction in ("forward_training", "backward_data", "backward_weights"):
        assert rows[f"convolution {direction}"][0] == 14, proc.stdout
    # each convolution reorders its input to oneDNN's layout; its output comes back to pe's
    assert rows["reorder, activations, to oneDNN's layout"][0] >= 14
    assert rows["reorder, activations, to pe's layout"][0] >= 14
    parts = [ms for kind, (*_, ms) in rows.items() if kind not in ("all", "all reorders")]
    assert abs(rows["all"][-1] - sum(parts)) < 0.05


def test_bench_ratio_within_each_repetition_pairs_the_bests_of_that_repetition():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        from bench_cpu import ratio_per_rep
    finally:
        sys.path.pop(0)
    times = {"pe 1 dev": [1.0, 2.0], "pe 2 dev": [0.5, 3.0], "torch 1 thr": [2.0, 2.0], "torch 2 thr": [1.0, 4.0]}
    assert ratio_per_rep(times) == [0.5, 1.0]


def test_fluid_programs_build_and_train_every_model_on_pe(monkeypatch):
    """benchmarks/fluid_programs.py (the program fluid_bench.py runs on Fluid 1.8.5 and on pe): every model
    builds and trains a step on pe from the seeded weights (the seq2seq model and its beam-search decoding
    at small sizes), and 2 CPU places follow 1 device on the MLP."""
    monkeypatch.setenv("CPU_NUM", "2")  # as the module sets it for itself on import; restored after the test
    import math
    import pe_cli.fluid as fluid

    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import fluid_programs
    finally:
        sys.path.pop(0)
    import bench_seq2seq

    tiny = dict(VOCAB=30, EMB=8, HIDDEN=8, BATCH=6, LENGTHS=(2, 5), MAX_LEN=5)  # the seq2seq rows, small
    with mock.patch.multiple(bench_seq2seq, **tiny), mock.patch.dict(fluid_programs.BATCH, seq2seq=6, beam=6):
        for model in fluid_programs.MODELS:
            loss = fluid_programs.Program(fluid, model, 1).step()
            if model == "beam":  # the best beams' log-probabilities summed over the sources
                assert math.isfinite(loss) and loss < 0
            else:
                assert math.isfinite(loss) and loss > 0, model
            if model == "seq2seq":  # 30 words, small initial weights
                assert loss == pytest.approx(math.log(30), rel=0.05)
    one, two = fluid_programs.Program(fluid, "mlp", 1), fluid_programs.Program(fluid, "mlp", 2)
    losses_one, losses_two = [one.step() for _ in range(3)], [two.step() for _ in range(3)]
    assert losses_one[0] == pytest.approx(math.log(10), rel=0.05)  # 10 classes, small initial weights
    assert losses_two == pytest.approx(losses_one, rel=1e-5)


def test_fluid_bench_without_a_fluid_python_says_how_to_give_one():
    env = {k: v for k, v in os.environ.items() if k != "PE_FLUID_PYTHON"}
    proc = subprocess.run(
        [sys.executable, os.path.join(REPO, "benchmarks", "fluid_bench.py")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=env,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert len(proc.stdout.splitlines()) == 1 and "PE_FLUID_PYTHON" in proc.stdout


def test_fluid_bench_table_compares_each_engines_best_configuration_per_repetition():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        from fluid_bench import table
    finally:
        sys.path.pop(0)
    times = {("mlp", 1): {"pe": [4.0, 2.0], "fluid": [8.0, 8.0]}, ("mlp", 2): {"pe": [3.0, 6.0], "fluid": [4.0, 10.0]}}
    results = {key: {e: [{"per_step_ms": t} for t in ts] for e, ts in by.items()} for key, by in times.items()}
    best = [line.split() for line in table(results, ["mlp"], "t").splitlines() if "best conf" in line][0]
    # pe's best 2.0 (1 device, rep 2) over Fluid's best 4.0 (2 devices, rep 1); within the reps 3/4 and 2/8
    assert best[3:] == ["2.00", "4.00", "0.50", "0.25-0.75"]
