"""Checks pe's numba copy of numpy's float32 exp (pe_cli/kernels/cpu/_numpy_expf.py) against numpy's own on
every one of the 2**32 float32 bit patterns, 2**24 at a time (about 25 s on a 2-core VM), and prints how many
differ (0 where numpy runs its SIMD exp). To check numpy's AVX2 code on an AVX-512 CPU, run it with
``NPY_DISABLE_CPU_FEATURES=X86_V4 NUMBA_CPU_NAME=haswell``.

    python tools/check_numpy_expf.py
"""

import sys
import time

import numpy as np

from pe_cli.kernels.cpu import activation  # noqa: F401  (the kernels' import order: runtime first)
from pe_cli.kernels.cpu import _numpy_expf

CHUNK = 1 << 24


def main():
    start, differ, out = time.perf_counter(), 0, np.empty(CHUNK, np.float32)
    for c in range(2**32 // CHUNK):
        x = (np.arange(CHUNK, dtype=np.uint64) + c * CHUNK).astype(np.uint32).view(np.float32)
        _numpy_expf.exp_into(x, out)
        with np.errstate(all="ignore"):
            theirs = np.exp(x)
        wrong = np.flatnonzero(out.view(np.uint32) != theirs.view(np.uint32))
        if wrong.size and not differ:
            i = wrong[0]
            print(f"first difference: exp({x[i]!r}) = {out[i]!r}, numpy's {theirs[i]!r}")
        differ += wrong.size
    print(f"{differ} of 2**32 float32 values differ from numpy's exp ({time.perf_counter() - start:.0f} s)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
