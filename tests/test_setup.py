"""The set-up (issue 77): `make train` installs what the main job uses, not the 1.8 GB of extras the
tests check (MKL alone was about 0.9 GB, on an AMD CPU where pe does not call it), and compiles only
what it trains; `make test` (CI) still installs every extra. Read from `make -n` (nothing runs)."""

import subprocess

from paths import REPO


def _plan(target, tmp_path):
    proc = subprocess.run(
        ["make", "-n", target, f"VENV={tmp_path}/venv"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return [
        line for line in proc.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line
    ], proc.stdout


def test_make_train_installs_the_base_package_only(tmp_path):
    installs, plan = _plan("train", tmp_path)
    assert len(installs) == 1 and installs[0].endswith(("-e '.'", "-e '.[mkl,onednn]'")), installs
    assert "pe smoke" not in plan and "pe train configs/mnist_lenet.yaml" in plan
    # nothing the base package lacks: curves need the plot extra (matplotlib), which it does not install
    assert "output.curves=true" not in plan, plan


def test_make_test_installs_every_extra_the_tests_check(tmp_path):
    installs, plan = _plan("test", tmp_path)
    assert any("'.[dev,cudasim,mpi,mkl,onednn,serve]'" in line for line in installs), installs
    assert "pe smoke --steps 4" in plan and "pytest" in plan
