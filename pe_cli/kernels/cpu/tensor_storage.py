"""Kernels of ops/tensor_storage.py."""

import numpy as np

# Fluid's Alignment: a tensor's slice of a coalesced buffer rounded up to this many bytes
ALIGN_BYTES = {"cpu": 4096, "cuda": 256}


def coalesce_layout(inputs, dtype, device="cpu"):
    """(start, size) of each input's slice in the buffer, and the buffer's size."""
    item, unit = np.dtype(dtype).itemsize, ALIGN_BYTES[device]
    spans, start = [], 0
    for a in inputs:
        spans.append((start, int(a.size)))
        start += -(-int(a.size) * item // unit) * unit // item
    return spans, start


def coalesce_tensor(ins, attrs):
    inputs, dtype = ins["Input"], np.dtype(attrs["dtype"])
    spans, total = coalesce_layout(inputs, dtype)
    fused = np.full(total, attrs["constant"], dtype) if attrs["set_constant"] else np.zeros(total, dtype)
    if attrs["copy_data"]:
        for a, (start, size) in zip(inputs, spans):
            fused[start : start + size] = np.asarray(a).reshape(-1)
    return {
        "FusedOutput": fused,
        "Output": [fused[start : start + size].reshape(np.shape(a)) for a, (start, size) in zip(inputs, spans)],
    }


def delete_var(ins, attrs):
    return {}
