"""``pe info`` names the CPU's vector width and the code paths numba and OpenBLAS take on it, and
follows NUMBA_CPU_NAME / OPENBLAS_CORETYPE where they choose another; the suite's second path
(tests/test_other_code_path.py) is narrower than the host's."""

import os
import subprocess
import sys

import pytest

from pe_cli.kernels.cpu.runtime import vector_width

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WIDER = ["AVX-512", "AVX2", "AVX", "SSE4.2"]


def info(**env):
    out = subprocess.run(
        [sys.executable, "-m", "pe_cli", "info"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, **env),
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    return next(line for line in out.stdout.splitlines() if line.startswith("vector width: "))


def test_the_host_width_is_the_widest_flag_the_cpu_lists():
    assert vector_width.host_width({"sse4_2", "avx", "avx2", "avx512f"}) == "AVX-512"
    assert vector_width.host_width({"sse4_2", "avx", "avx2", "fma"}) == "AVX2"
    assert vector_width.host_width({"sse4_2"}) == "SSE4.2"


def test_pe_info_names_the_width_and_both_paths():
    line = info()
    assert line.startswith(f"vector width: {vector_width.host_width()}; numba compiles pe's loops for ")
    kernel = vector_width.blas_kernel()
    if kernel is not None:
        assert f"OpenBLAS runs its {kernel[0]} kernels ({kernel[1]})" in line


@pytest.mark.skipif(vector_width.host_width() not in ("AVX-512", "AVX2"), reason="needs an AVX2 CPU")
def test_pe_info_follows_the_settings_that_choose_another_path():
    line = info(NUMBA_CPU_NAME="haswell", OPENBLAS_CORETYPE="Haswell")
    assert "numba compiles pe's loops for haswell (AVX2)" in line
    if vector_width.blas_kernel() is not None:
        assert "OpenBLAS runs its Haswell kernels (AVX2)" in line
    assert line.endswith("(as NUMBA_CPU_NAME=haswell OPENBLAS_CORETYPE=Haswell asks)")


@pytest.mark.skipif(vector_width.host_width() not in WIDER[:3], reason="no narrower path on this CPU")
def test_the_second_path_is_narrower_than_the_one_taken_now():
    env = vector_width.other_code_path()
    now = vector_width.numba_target()[1]
    assert WIDER.index(vector_width.NUMBA_TARGETS[env["NUMBA_CPU_NAME"]]) > WIDER.index(now)
    kernel = vector_width.blas_kernel()
    if kernel is not None:
        assert WIDER.index(vector_width.OPENBLAS_KERNELS[env["OPENBLAS_CORETYPE"].lower()]) > WIDER.index(kernel[1])
