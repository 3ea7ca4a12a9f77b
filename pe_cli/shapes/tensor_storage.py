"""coalesce_tensor's layout: where each input's slice lies in the fused buffer, on either device."""

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
