"""CPU out-kernels of ops/tensor_storage.py (meta rules: shapes/tensor_storage.py)."""

import numpy as np

from ...shapes import tensor_storage as rules
from ..structured import adapter


def coalesce_out(ins, outs, attrs, meta):
    """coalesce_tensor's "fused": the buffer numpy makes (zeros, or ``constant``), each Input's bytes copied into its
    span with copy_data (another dtype of its size reinterpreted, as Paddle's), and Output[i] its span as a view in
    Input[i]'s shape."""
    inputs, dtype, (spans,) = ins["Input"], meta.outputs["FusedOutput"][1], meta.args
    (total,) = meta.outputs["FusedOutput"][0]
    fused = np.full(total, attrs["constant"], dtype) if attrs["set_constant"] else np.zeros(total, dtype)
    if attrs["copy_data"]:
        for a, (start, size) in zip(inputs, spans):
            fused[start : start + size] = np.ascontiguousarray(a).reshape(-1).view(dtype)  # its bytes, as Paddle's
    outs["FusedOutput"] = fused
    outs["Output"] = [fused[start : start + size].reshape(np.shape(a)) for a, (start, size) in zip(inputs, spans)]


def delete_var_out(ins, outs, attrs, meta):
    """delete_var's: nothing (Fluid erases the variables from the scope; pe frees a value once nothing reads it)."""


coalesce_out.launches = delete_var_out.launches = None

# the kernel by name CUDA's kernels are given (kernels/cuda/tensor_storage.py's HOST_OPS): the adapter
delete_var = adapter(rules.delete_var_meta, delete_var_out, "delete_var")
