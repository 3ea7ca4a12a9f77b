"""Host memory between steps: freed arrays stay with the process, to be reused by the next step.

Kernels return new arrays (they never write into their inputs), so a step allocates and frees the
same buffers every time. glibc's malloc gives large freed blocks back to the kernel (munmap, or a
trim of the heap top) and maps them again on the next step: every page is then faulted in anew.
Measured on LeNet-5 (batch 64): 1,400 page faults a step, 30% of its time. Fluid keeps its own
buddy allocator and PyTorch a caching allocator for the same reason; here two glibc settings do
it: blocks up to 32 MiB come from the heap (not mmap), and up to 512 MiB of free heap is kept.

Applied once, when the first CPU executor is made; ``PE_MALLOC_TUNE=0`` leaves malloc alone.
Elsewhere than glibc (musl, macOS, Windows) nothing is done.
"""
import ctypes
import os
import sys
import threading

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20       # glibc's largest allowed value
TRIM_THRESHOLD = 512 << 20

_lock = threading.Lock()
_done = False


def keep_freed_memory():
    """Tunes glibc malloc to keep freed step buffers mapped (idempotent). True if it did."""
    global _done
    if _done:
        return True
    with _lock:
        if _done or os.environ.get("PE_MALLOC_TUNE") == "0" or not sys.platform.startswith("linux"):
            return False
        try:
            mallopt = ctypes.CDLL(None).mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        ok = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        _done = ok
        return ok
