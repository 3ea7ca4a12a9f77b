"""numba loops of the metric kernels (kernels/cpu/metric.py; imported on first use: see runtime/loops.py), which a
planned step launches in place of their numpy forms: the same counts, the same bits."""

import numba
import numpy as np
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_jit = numba.njit(cache=True, nogil=True)


@_jit
def accuracy_counts(idx, label, accuracy, correct, total):
    """accuracy's outputs (each of one value): Correct, the rows r of ``idx`` [N, k] holding label[r]; Total, N;
    Accuracy, Correct / Total in float64 rounded to float32 (0 for no row), as metric._accuracy computes them."""
    n, k = idx.shape
    hits = 0
    for r in range(n):
        for j in range(k):
            if idx[r, j] == label[r]:
                hits += 1
                break
    accuracy[0] = np.float32(hits / n) if n else np.float32(0.0)
    correct[0] = hits
    total[0] = n
