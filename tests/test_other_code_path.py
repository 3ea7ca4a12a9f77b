"""The tests whose numbers depend on the CPU's code path, run a second time on another one.

numba compiles pe's loops for the CPU it starts on and OpenBLAS picks its kernels for it, so an
AVX-512 host and an AVX2 host round differently in the last bits (docs/PARALLEL.md, "One device
against N: float32 rounding"). A suite green on one host was red on the other (issue 91). Here the
data-parallel equivalence, the recorded Fluid 1.8.5 and Paddle values, the slim strategies and every
op case's forward run again in a fresh pytest under the next narrower path this CPU also runs
(``vector_width.other_code_path()``: AVX2 on an AVX-512 CPU, SSE4.2 on an AVX2 one), so a suite green
here is green on both kinds of host. The op cases' gradients are left out: they are checked against
float64 finite differences at tolerances far above float32 rounding, and compiling them for a second
target would double the pass.
"""

import os
import subprocess
import sys

import pytest

from pe_cli.kernels.cpu.runtime import vector_width

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NUMERICS = [
    "tests/executor/test_parallel_equivalence.py",
    "tests/executor/test_parallel_executor.py",
    "tests/compat/test_compat.py::test_script_runs_under_pe_fluid[fluid_parallel_executor_mnist.py]",
    "tests/fluid/contrib/test_prune_strategies.py",
    "tests/fluid/test_fluid_oracle.py",
    "tests/fluid/test_fluid_oracle_ops.py",
    "tests/paddle/test_paddle_oracle.py",
    "tests/ops/test_ops.py",
]
ONLY = "not (test_ops and test_gradient)"

OTHER = vector_width.other_code_path()


def _env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update(OTHER)
    # no compile helper: every loop is compiled for the other path on its first call and runs there. With
    # the helper (a first run's default) the pass's cold cache sent each loop with a numpy replica to a
    # helper process and ran the replica on that first call (numpy: no numba target reaches it), and the
    # helper's start and its compiles cost more CPU than compiling in place (195 against 182 CPU-s for the
    # pass, docs/PERFORMANCE.md)
    env["PE_COMPILE_HELPER"] = "0"
    return env


@pytest.mark.skipif(not OTHER, reason="this CPU has no narrower code path to take")
def test_the_second_path_is_the_one_asked_for():
    probe = (
        "from pe_cli.kernels.cpu.runtime import vector_width as v; print(v.numba_target()[0]); print(v.blas_kernel())"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=_env(), cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    target, kernel = out.stdout.splitlines()
    assert target == OTHER["NUMBA_CPU_NAME"]
    if kernel != "None":
        assert OTHER["OPENBLAS_CORETYPE"].lower() in kernel.lower()


@pytest.mark.skipif(not OTHER, reason="this CPU has no narrower code path to take")
def test_numerics_sensitive_tests_pass_on_the_other_code_path():
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-k", ONLY, *NUMERICS],
        capture_output=True,
        text=True,
        timeout=1500,
        env=_env(),
        cwd=REPO,
    )
    settings = " ".join(f"{k}={v}" for k, v in OTHER.items())
    assert out.returncode == 0, f"under {settings}:\n" + out.stdout[-6000:] + out.stderr[-2000:]
    assert " passed" in out.stdout.splitlines()[-1], out.stdout[-2000:]
