"""The meta rule (shapes/structured.py) of check_numerics (ops/numerics.py; out-kernel: kernels/cpu/numerics.py):
stats [3] int64 and values [3] float32, whatever the tensor's shape and dtype; variant "counts", written into the
buffers it is handed (a NaN or inf refused by the out-kernel at level 0: the values tell)."""

import numpy as np

from .structured import Meta

_OUTPUTS = {"stats": ((3,), np.dtype(np.int64)), "values": ((3,), np.dtype(np.float32))}


def check_numerics_meta(attrs, ins, facts):
    return Meta(dict(_OUTPUTS), "counts")
