"""The single-device Fluid-style examples run as users would run them."""

import os
import subprocess
import sys


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_example(name, *args):
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", name), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_executor_basics():
    out = run_example("executor_basics.py")
    assert out.startswith("loss ")


def test_clone_for_test_gives_the_same_program_both_ways():
    assert "cloned test program" in run_example("clone_for_test.py")


def test_train_mnist_mlp_learns():
    out = run_example("train_mnist_mlp.py", "--epochs", "1")
    accuracy = float(out.strip().rsplit(" ", 1)[-1])
    assert accuracy > 0.85, out
