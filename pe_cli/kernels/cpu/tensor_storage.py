"""Kernels of ops/tensor_storage.py."""

import numpy as np

from ...shapes.tensor_storage import coalesce_layout


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
