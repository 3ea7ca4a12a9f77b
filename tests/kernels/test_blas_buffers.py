"""OpenBLAS's work buffers are written before pe's GEMMs use them (kernels/cpu/runtime/cblas.py): a buffer
part OpenBLAS never wrote is unmapped, and a single-threaded SGEMM whose buffer had such a part ran
at a third of its speed on an AMD EPYC VM (docs/PERFORMANCE.md, "OpenBLAS's work buffers"). What
the test checks is the cause, not the time: after pe found its GEMM, every page of the first
TOUCH_BYTES of the buffers the next callers get is mapped (/proc/self/pagemap's present bit).

It runs in a fresh process: this one's buffers have been through other tests' GEMMs."""

import json
import subprocess
import sys
import textwrap

import pytest

from pe_cli.kernels.cpu.runtime import cblas

SCRIPT = textwrap.dedent("""
    import ctypes, json, struct
    import numpy as np, threadpoolctl
    from pe_cli.kernels.cpu.runtime import cblas

    threadpoolctl.threadpool_limits(1)
    np.ones((512, 784), np.float32) @ np.ones((784, 256), np.float32)   # numpy's GEMM goes first
    lib = cblas._numpy_blas()
    alloc, free = lib.blas_memory_alloc, lib.blas_memory_free
    alloc.restype, alloc.argtypes, free.argtypes = ctypes.c_void_p, [ctypes.c_int], [ctypes.c_void_p]

    def mapped(address):
        pages = cblas.TOUCH_BYTES // 4096
        with open("/proc/self/pagemap", "rb") as f:
            f.seek(address // 4096 * 8)
            flags = struct.unpack(f"{pages}Q", f.read(8 * pages))
        return sum(v >> 63 & 1 for v in flags), pages

    def next_buffers(n):            # the buffers the next n concurrent callers get
        held = [alloc(0) for _ in range(n)]
        for address in held:
            free(address)
        return held

    before = [mapped(a) for a in next_buffers(1)]
    assert cblas.gemm(np.dtype(np.float32)) is not None
    print(json.dumps({"before": before, "after": [mapped(a) for a in next_buffers(3)]}))
""")


def _openblas_with_allocator():
    lib = cblas._numpy_blas()
    return lib is not None and hasattr(lib, "blas_memory_alloc") and hasattr(lib, "blas_memory_free")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/pagemap is Linux's")
@pytest.mark.skipif(not _openblas_with_allocator(), reason="numpy's BLAS is not an OpenBLAS exporting its allocator")
def test_the_buffers_the_next_callers_get_are_mapped_once_pe_found_its_gemm():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    pages = json.loads(out.stdout.splitlines()[-1])  # (mapped, pages) per buffer
    assert pages["after"] and all(mapped == n for mapped, n in pages["after"]), pages


def test_a_library_without_the_allocator_is_left_alone():
    assert cblas.prefault_buffers(None) == 0
