"""The CPU's vector width and the code paths pe's CPU kernels take on it.

Two libraries pick their code for the CPU they start on: numba compiles pe's loops for the host's
CPU (or for ``NUMBA_CPU_NAME``), and OpenBLAS, numpy's BLAS, runs the kernels of the core type it
detects (or ``OPENBLAS_CORETYPE``). On an AVX-512 CPU both take wider paths than on an AVX2 one, and
a float32 result can differ in its last bits between them: a GEMM of 8 rows rounds a row apart from
one of 32 on OpenBLAS's SkylakeX kernels where its Haswell kernels happened to agree (docs/PARALLEL.md,
"One device against N: float32 rounding"). So ``pe info`` and the benchmarks name the path, and the
suite runs its numerics-sensitive tests a second time on another path than the host's
(tests/test_other_code_path.py, with ``other_code_path()``'s settings).
"""

import os
import platform

# widest first: the first flag /proc/cpuinfo lists names the CPU's width
_FLAGS = (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4_2", "SSE4.2"))

# numba's (LLVM's) CPU names and OpenBLAS's core types pe names, with the width of the code they give
NUMBA_TARGETS = {
    "skylake-avx512": "AVX-512",
    "cascadelake": "AVX-512",
    "cooperlake": "AVX-512",
    "icelake-server": "AVX-512",
    "sapphirerapids": "AVX-512",
    "znver4": "AVX-512",
    "znver5": "AVX-512",
    "haswell": "AVX2",
    "broadwell": "AVX2",
    "skylake": "AVX2",
    "znver1": "AVX2",
    "znver2": "AVX2",
    "znver3": "AVX2",
    "sandybridge": "AVX",
    "ivybridge": "AVX",
    "nehalem": "SSE4.2",
    "westmere": "SSE4.2",
}
OPENBLAS_KERNELS = {
    "skylakex": "AVX-512",
    "cooperlake": "AVX-512",
    "sapphirerapids": "AVX-512",
    "haswell": "AVX2",
    "zen": "AVX2",
    "sandybridge": "AVX",
    "nehalem": "SSE4.2",
    "core2": "SSE3",
    "prescott": "SSE3",
}

# the second path the suite takes: the next narrower width the CPU also runs, both libraries alike
# (numba's CPU name, OpenBLAS's core type, MKL's MKL_ENABLE_INSTRUCTIONS where pe's loops call MKL)
_OTHER = {
    "AVX-512": ("haswell", "Haswell", "AVX2"),
    "AVX2": ("nehalem", "Nehalem", "SSE4_2"),
    "AVX": ("nehalem", "Nehalem", "SSE4_2"),
}


def cpu_flags():
    """The CPU's feature flags (/proc/cpuinfo's first ``flags`` line), or an empty set."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def host_width(flags=None):
    """The widest SIMD the CPU has: 'AVX-512', 'AVX2', 'AVX', 'SSE4.2', or the architecture's name
    where /proc/cpuinfo lists none of these (an ARM CPU, say)."""
    flags = cpu_flags() if flags is None else flags
    for flag, width in _FLAGS:
        if flag in flags:
            return width
    return platform.machine() or "unknown"


def numba_target():
    """(the CPU name numba compiles for, its width): ``NUMBA_CPU_NAME`` where set, else the host's."""
    from numba.core import config

    if config.CPU_NAME and config.CPU_NAME != "host":
        return config.CPU_NAME, NUMBA_TARGETS.get(config.CPU_NAME.lower(), "unknown width")
    import llvmlite.binding as ll

    return ll.get_host_cpu_name(), host_width()


def blas_kernel():
    """(the core type OpenBLAS runs its kernels for, its width), or None where numpy's BLAS is not
    OpenBLAS (threadpoolctl tells)."""
    try:
        import threadpoolctl

        found = [i for i in threadpoolctl.threadpool_info() if i.get("internal_api") == "openblas"]
    except Exception:  # threadpoolctl's scan of a broken library: nothing to name
        return None
    if not found:
        return None
    arch = found[0].get("architecture") or "unknown"
    return arch, OPENBLAS_KERNELS.get(arch.lower(), "unknown width")


def describe():
    """One line: the CPU's width and the paths numba and OpenBLAS take on it (``pe info``)."""
    name, width = numba_target()
    line = f"vector width: {host_width()}; numba compiles pe's loops for {name} ({width})"
    kernel = blas_kernel()
    if kernel is not None:
        line += f", OpenBLAS runs its {kernel[0]} kernels ({kernel[1]})"
    settings = [f"{k}={os.environ[k]}" for k in ("NUMBA_CPU_NAME", "OPENBLAS_CORETYPE") if os.environ.get(k)]
    return line + (f" (as {' '.join(settings)} asks)" if settings else "")


def other_code_path():
    """The environment for the second path the suite's numerics-sensitive tests take: for numba and
    for OpenBLAS each, the next narrower width than the one it takes now (AVX2 where it runs AVX-512,
    SSE4.2 where it runs AVX2; a machine that sets OPENBLAS_CORETYPE already is taken as it runs),
    and MKL's below the host's where pe's loops call MKL;
    {} where neither has one to take (an ARM CPU, an SSE-only one)."""
    env = {}
    numba_other = _OTHER.get(numba_target()[1])
    if numba_other is not None:
        env["NUMBA_CPU_NAME"] = numba_other[0]
    kernel = blas_kernel()
    blas_other = _OTHER.get(kernel[1] if kernel is not None else host_width())
    if blas_other is not None:
        env["OPENBLAS_CORETYPE"] = blas_other[1]
    mkl_other = _OTHER.get(host_width())
    if mkl_other is not None:
        env["MKL_ENABLE_INSTRUCTIONS"] = mkl_other[2]
    return env
