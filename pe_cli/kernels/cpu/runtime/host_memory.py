"""Host memory between steps: freed arrays stay with the process, to be reused by the next step.

Kernels return new arrays (they never write into their inputs), so a step allocates and frees the
same buffers every time. glibc's malloc gives large freed blocks back to the kernel (munmap, or a
trim of the heap top) and maps them again on the next step: every page is then faulted in anew.
Measured on LeNet-5 (batch 64): 1,400 page faults a step, 30% of its time. Fluid keeps its own
buddy allocator and PyTorch a caching allocator for the same reason; here glibc's settings do it:

- every block comes from the heap, none from mmap (``M_MMAP_MAX`` 0). The mmap threshold alone
  (32 MiB, glibc's largest) left larger blocks mapped anew each step: the wide MLP's two
  [4096, 4096] weight gradients, 64 MiB each, were faulted in (the kernel zeroing every page) in
  every step, 6% of its time (this setting alone: 159 -> 149 and 163 -> 154 ms, best of 5 x 8
  steps, alternating; 2-core Xeon VM, 2026-11-25; with the next, docs/PERFORMANCE.md "Memory");
- one heap for every thread (``M_ARENA_MAX`` 1): a thread's own arena grows in heaps of at most
  64 MiB, and glibc maps a larger block for it whatever ``M_MMAP_MAX`` says. The executors' kernels
  run on their threads; a block's allocation is a short lock in a kernel's time;
- up to 512 MiB of free heap top is kept (the trim threshold); above it the top is given back.

A freed block inside the heap stays with the process until it is reused: the resident size
follows a run's peak, as with PyTorch's caching allocator.

Applied once, when the first CPU executor is made; ``PE_MALLOC_TUNE=0`` leaves malloc alone.
Elsewhere than glibc (musl, macOS, Windows) nothing is done.
"""

import ctypes
import os
import sys
import threading

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_MMAP_MAX = -4
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 32 << 20  # glibc's largest allowed value
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
        ok = all(
            mallopt(option, value) == 1
            for option, value in (
                (_M_MMAP_THRESHOLD, MMAP_THRESHOLD),
                (_M_MMAP_MAX, 0),
                (_M_ARENA_MAX, 1),
                (_M_TRIM_THRESHOLD, TRIM_THRESHOLD),
            )
        )
        _done = ok
        return ok
