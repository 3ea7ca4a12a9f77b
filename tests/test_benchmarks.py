"""The benchmarks still run against the code (they are not run in full here: they measure speed,
which tests never assert): every script loads, and bench_cpu.py's pe model trains a few steps."""
import glob
import os
import runpy
import subprocess
import sys
from unittest import mock

import pytest

from test_cli_helpers import REPO

SCRIPTS = sorted(glob.glob(os.path.join(REPO, "benchmarks", "*.py")))


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_script_loads(script):
    with mock.patch.dict(os.environ):   # a script may set thread variables at import: not for later tests
        runpy.run_path(script, run_name="loaded_by_a_test")   # top-level imports and definitions


def test_bench_cpu_models_train_through_the_busy_threads_worker():
    proc = subprocess.run([sys.executable, os.path.join(REPO, "benchmarks", "busy_threads.py"), "--worker", "seed",
                           "--steps", "3"], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout.strip().splitlines()[-1]) > 0
