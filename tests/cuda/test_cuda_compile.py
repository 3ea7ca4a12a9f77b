"""Every kernel the op cases launch compiles with numba's real CUDA compiler (float64 and float32),
checked without a GPU by tests/cuda/compile_check.py. Needs libNVVM (pip install '.[cuda]'); skipped
where it is missing, as in CPU-only CI."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.skipif(os.environ.get("PE_REAL_GPU") == "1", reason="a real GPU run compiles every kernel anyway")
def test_every_kernel_compiles_for_the_gpu():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "compile_check.py")], env=env, capture_output=True, text=True, timeout=900
    )
    if proc.returncode == 77:
        pytest.skip(proc.stdout.strip())
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
