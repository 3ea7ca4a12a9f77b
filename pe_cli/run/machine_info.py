"""``pe info``: what pe runs on here and what it chose for it, as lines of text: the CPU and its cores,
its vector width and the code paths numba and OpenBLAS take on it (kernels/cpu/runtime/vector_width.py), the BLAS pe's loops call (and, where it was measured on this CPU, the times behind the choice:
pe_cli/kernels/cpu/runtime/measured_choices.py), numpy's own BLAS, oneDNN's convolutions, the thread
layout for 1 and 2 CPU devices, numba and its cache, CUDA and MPI."""

import os
import platform
import sys

import numba
import numpy as np

from ..base.errors import PeError
from ..distributed.rank_guard import mpiexec
from ..kernels.cpu.runtime import (
    cblas as _cblas,
    onednn as _onednn,
    measured_choices,
    numba_cache,
    threads,
    vector_width,
)
from ..kernels.cuda import _blas as cuda_blas
from ..kernels.cuda import runtime as cuda_runtime


def report():
    """The lines ``pe info`` prints."""
    lines = [
        f"pe {sys.modules['pe_cli'].__version__}: Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}",
        f"CPU: {measured_choices.cpu_model()} ({platform.machine()}), {threads.cores()} core(s) for pe",
        vector_width.describe(),
    ]
    lines.append(
        f"GEMMs of pe's loops: {_cblas.source() or 'numpy (no CBLAS GEMM found)'}, "
        f"{_blas_reason(_cblas, measured_choices)}"
    )
    lines += [f"numpy's BLAS: {b}" for b in _numpy_blas()]
    lib = _onednn.library()
    lines.append(
        f"convolutions: oneDNN for float32 inputs of at least {_onednn.MIN_CHANNELS} channels, pe's own otherwise"
        if lib is not None
        else "convolutions: pe's own (oneDNN not installed or PE_ONEDNN=0; pip install 'pe-cli[onednn]')"
    )
    lines += [f"threads: {threads.describe(n)}" for n in (1, 2)]
    lines.append(f"measured choices: {os.path.join(measured_choices.cache_dir(), measured_choices.FILE)}")
    lines.append(f"numba's cache: {numba_cache.cache_dir()} (read back only where pe's digest matches)")
    lines.append(f"CUDA: {_cuda()}")
    lines.append(f"MPI: {_mpi()}")
    return lines


def _blas_reason(cblas, choices):
    chosen = os.environ.get("PE_BLAS", "").strip().lower()
    if chosen in ("mkl", "numpy"):
        return f"as PE_BLAS={chosen} asks"
    for key, entry in sorted(choices.recorded().items()):
        if key.startswith("the GEMM of pe's loops") and choices.cpu_model() in key and isinstance(entry, dict):
            times = ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in sorted(entry.get("seconds", {}).items()))
            return f"measured on this CPU {entry.get('when', '')}: {times}"
    return "MKL not installed (pip install 'pe-cli[mkl]' to measure it here)"


def _numpy_blas():
    try:
        import threadpoolctl

        found = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    except Exception as e:  # threadpoolctl's scan of a broken library: say so
        return [f"unknown ({type(e).__name__})"]
    return [
        f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture') or 'generic'}, "
        f"{i.get('num_threads')} thread(s))"
        for i in found
    ] or ["none found"]


def _cuda():
    reason = cuda_runtime.unavailable_reason()
    if reason is not None:
        return f"not available: {reason}"
    why = cuda_blas.unavailable_reason()
    return f"{cuda_runtime.device_count()} GPU(s); GEMMs on " + (
        "cuBLAS (nvmath-python)" if why is None else f"pe's kernel ({why})"
    )


def _mpi():
    try:
        found = mpiexec()
    except PeError:
        return "mpiexec not found (pip install 'pe-cli[mpi]' for several processes)"
    have_mpi4py = any(os.path.isdir(os.path.join(p, "mpi4py")) for p in sys.path if p)
    return f"mpiexec at {found}" + ("" if have_mpi4py else "; mpi4py missing")
