"""CUDA kernels of ops/tensor_storage.py: the buffer filled by the fill kernel, each input copied into its
slice by the copy kernel (slices aligned to 256 bytes, as Fluid's GPU allocations)."""

import numpy as np

from ...shapes.tensor_storage import coalesce_layout
from ._host import as_is
from ._launch import _copy, flat, full, grid


def coalesce_tensor(ins, attrs):
    inputs, dtype = ins["Input"], np.dtype(attrs["dtype"])
    spans, total = coalesce_layout(inputs, dtype, "cuda")
    fused = full((total,), attrs["constant"] if attrs["set_constant"] else 0, dtype)
    if attrs["copy_data"]:
        for a, (start, size) in zip(inputs, spans):
            if size:
                _copy[grid(size)](flat(a), fused[start : start + size])
    return {
        "FusedOutput": fused,
        "Output": [fused[start : start + size].reshape(tuple(a.shape)) for a, (start, size) in zip(inputs, spans)],
    }


HOST_OPS = {"delete_var": as_is}
