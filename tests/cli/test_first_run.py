"""The first run on a machine (issue 17, item 2): `pe train` does not wait for numba. The loops a step
needs are compiled by a helper process while numpy replicas of them run, and it says so before the
first step; the run's numbers are those of a run that waited for the loops it lacked (PE_COMPILE_HELPER=0,
which says what it compiled and what that cost), to the bit; a run that finds the loops in numba's
cache says nothing about compiling."""

import pathlib
import shutil

from tests.cli.test_helpers import pe

CONFIG = "configs/mnist_lenet.yaml"
SMALL = ["data.train.limit=256", "data.eval.limit=64", "max_steps=6", "output.curves=false"]
ONE = {"PE_DEVICE_THREADS": "1"}  # no parallel twins: a warm cache then holds every loop a run uses


def run(*args, **env):
    return pe("train", CONFIG, *SMALL, *args, env=dict(ONE, **env))


def _parameters(out):
    step = next(p for p in (pathlib.Path(out) / "ckpt").iterdir() if p.name.startswith("step-"))
    return {p.name: p.read_bytes() for p in sorted(step.glob("*.npy"))}


def test_a_first_run_computes_while_a_helper_compiles_and_gets_the_same_bits(tmp_path):
    helped = run("--out", tmp_path / "helped", NUMBA_CACHE_DIR=str(tmp_path / "c1"))
    assert helped.returncode == 0, helped.stderr
    lines = helped.stderr.splitlines()
    said = next(i for i, line in enumerate(lines) if line.startswith("compiling kernels for this machine in a helper"))
    first_step = next(i for i, line in enumerate(lines) if line.startswith("train epoch"))
    assert said < first_step

    # a run that waits compiles what its cache lacks before the first step (a copy of the helper's
    # cache less the convolution and relu loops: one cold compile per test is enough)
    cache = _without(tmp_path / "c1", tmp_path / "c2", "_conv_loops.*", "_activation_row_loops.relu*")
    waited = run("--out", tmp_path / "waited", NUMBA_CACHE_DIR=cache, PE_COMPILE_HELPER="0")
    assert waited.returncode == 0, waited.stderr
    lines = waited.stderr.splitlines()
    said = lines.index("compiling kernels for this machine (first run only: numba caches them)...")
    done = [i for i, line in enumerate(lines) if line.startswith("compiled ") and "(cached for the next runs)" in line]
    first_step = next(i for i, line in enumerate(lines) if line.startswith("train epoch"))
    assert len(done) == 1 and said < done[0] < first_step
    assert int(lines[done[0]].split()[1]) >= 3  # the convolutions (forward, gradients) and relu

    assert _parameters(tmp_path / "helped") == _parameters(tmp_path / "waited")

    warm = run("--out", tmp_path / "warm", NUMBA_CACHE_DIR=str(tmp_path / "c2"))
    assert warm.returncode == 0, warm.stderr
    assert "compil" not in warm.stderr
    assert _parameters(tmp_path / "warm") == _parameters(tmp_path / "waited")

    # -q says nothing, even where a run compiles: a copy of the warm cache less the relu loops
    relu = "_activation_row_loops.relu*"
    loud = run("--out", tmp_path / "loud", NUMBA_CACHE_DIR=_without(tmp_path / "c2", tmp_path / "c3", relu))
    assert loud.returncode == 0 and "compiling kernels" in loud.stderr
    quiet = run("--out", tmp_path / "quiet", "-q", NUMBA_CACHE_DIR=_without(tmp_path / "c2", tmp_path / "c4", relu))
    assert quiet.returncode == 0 and "compil" not in quiet.stderr + quiet.stdout


def _without(cache, dest, *patterns):
    """A copy of a numba cache less the loops whose files match ``patterns``: a run then compiles those."""
    shutil.copytree(cache, dest)
    for pattern in patterns:
        for path in pathlib.Path(dest).rglob(pattern):
            path.unlink()
    return str(dest)
