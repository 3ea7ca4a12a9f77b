"""The first run on a machine compiles kernels (issue 17, item 2): `pe train` says so before the
wait and how long it took after the first step; a run that finds them in numba's cache says nothing."""
from test_cli_helpers import pe

CONFIG = "configs/mnist_logreg.yaml"
SMALL = ["data.train.limit=64", "data.eval.limit=64", "max_steps=2", "output.curves=false"]


def test_a_cold_cache_says_it_is_compiling_then_a_warm_one_is_silent(tmp_path):
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    cold = pe("train", CONFIG, *SMALL, "--out", tmp_path / "cold", env=env)
    assert cold.returncode == 0, cold.stderr
    lines = cold.stderr.splitlines()
    said = lines.index("compiling kernels for this machine (first run only: numba caches them)...")
    done = [i for i, line in enumerate(lines) if line.startswith("compiled ") and "(cached for the next runs)" in line]
    first_step = next(i for i, line in enumerate(lines) if line.startswith("train epoch"))
    assert len(done) == 1 and said < done[0] < first_step
    count = int(lines[done[0]].split()[1])
    assert count >= 3                          # at least the fc, the loss and the update kernels
    warm = pe("train", CONFIG, *SMALL, "--out", tmp_path / "warm", env=env)
    assert warm.returncode == 0, warm.stderr
    assert "compil" not in warm.stderr
    quiet = pe("train", CONFIG, *SMALL, "--out", tmp_path / "quiet", "-q", env={"NUMBA_CACHE_DIR": str(tmp_path / "c2")})
    assert quiet.returncode == 0 and "compil" not in quiet.stderr + quiet.stdout
