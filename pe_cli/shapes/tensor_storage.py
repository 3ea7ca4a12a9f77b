"""coalesce_tensor's layout: where each input's slice lies in the fused buffer, on either device; the meta rules of
coalesce_tensor and delete_var (ops/tensor_storage.py)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

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


def coalesce_meta(attrs, ins, facts):
    """coalesce_tensor (meta rule, shapes/structured.py): FusedOutput of the buffer's size, dtype ``dtype``, and
    Output[i] its slice in Input[i]'s shape and ``dtype`` (copy_data of an Input of another dtype's size refused);
    "fused", a numpy form that makes the buffer (zeros, or ``constant`` with set_constant) and its slices as views of
    it (``fresh``: nothing allocated), the spans in ``args``."""
    inputs, dtype = ins["Input"], np.dtype(attrs["dtype"])
    for i, a in enumerate(inputs if attrs["copy_data"] else ()):
        if np.dtype(a.dtype).itemsize != dtype.itemsize:  # (Paddle copies its bytes: past them, memory it never set)
            raise PeError(
                f"coalesce_tensor: copy_data of Input[{i}] ({np.dtype(a.dtype).name}) into a {dtype.name} buffer: "
                f"Paddle copies the bytes unconverted, which leaves part of the slice unset; give Input the dtype "
                f"attribute's dtype"
            )
    spans, total = coalesce_layout(inputs, dtype)
    outputs = {"FusedOutput": ((total,), dtype), "Output": [(tuple(np.shape(a)), dtype) for a in inputs]}
    return Meta(outputs, "fused", args=(tuple(spans),), fresh=True)


def delete_var_meta(attrs, ins, facts):
    """delete_var: no output (pe frees a value once nothing reads it), "none"."""
    return Meta({}, "none")
