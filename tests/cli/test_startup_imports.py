"""Commands that run no kernel start without importing numba (its import alone costs ~0.25 s of CPU
per process): ``pe summary`` and ``pe graph`` of a config, and ``pe --help``."""

import os
import subprocess
import sys

import pytest

from tests.cli.test_helpers import REPO


def _imported(args, tmp_path):
    env = dict(os.environ, PYTHONPATH=REPO)
    env.pop("PE_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "pe_cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


@pytest.mark.parametrize(
    "args",
    [
        ["summary", os.path.join(REPO, "configs", "mnist_lenet.yaml")],
        ["graph", os.path.join(REPO, "configs", "mnist_lenet.yaml"), "-o", "graph.dot"],
        ["--help"],
    ],
    ids=["summary", "graph", "help"],
)
def test_a_command_that_runs_no_kernel_imports_no_numba(args, tmp_path):
    modules = _imported(args, tmp_path)
    assert "pe_cli.run" in modules or args == ["--help"]
    assert "numba" not in modules
