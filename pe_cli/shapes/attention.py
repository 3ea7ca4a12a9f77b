"""scaled_dot_product_attention's and its gradient's meta rules (structured kernels, shapes/structured.py; the
out-kernels: kernels/cpu/attention.py). Variants: "loops" where Q, K, V (the Mask, Weights and Out@GRAD) share one
float dtype and no value is empty (the (sample, head) pairs in numba loops calling BLAS: where the host's BLAS
cannot be called from them, kernels/cpu/runtime/cblas.py, the out-kernel computes the numpy form into the buffers
instead); "numpy" otherwise (batched matmuls and the softmax op's kernels: a fresh variant). The gradient's outputs
are those the op writes (``facts.wanted``); the loops write all three, the others into scratch."""

import numpy as np

from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
GRADS = ("Q@GRAD", "K@GRAD", "V@GRAD")


def _loops(*values):
    dtype = np.dtype(values[0].dtype)
    return dtype in _FLOATS and all(np.dtype(v.dtype) == dtype and 0 not in tuple(v.shape) for v in values)


def sdpa_meta(attrs, ins, facts):
    q, k, v, mask = ins["Q"], ins["K"], ins["V"], ins.get("Mask")
    dtype = np.dtype(q.dtype)
    outputs = {
        "Out": (tuple(q.shape), np.result_type(dtype, v.dtype)),
        "Weights": ((q.shape[0], q.shape[2], q.shape[1], k.shape[1]), dtype),
    }
    if _loops(q, k, v) and (mask is None or np.dtype(mask.dtype) == dtype):
        return Meta(outputs, "loops")
    return Meta(outputs, "numpy", fresh=True)


def sdpa_grad_meta(attrs, ins, facts):
    wanted = facts.wanted(GRADS)
    q = ins["Q"]
    specs = {slot: (tuple(ins[slot[0]].shape), np.dtype(q.dtype)) for slot in GRADS}
    outputs = {slot: spec for slot, spec in specs.items() if slot in wanted}
    if _loops(q, ins["K"], ins["V"], ins["Weights"], ins["Out@GRAD"]):
        scratch = {"@" + slot: spec for slot, spec in specs.items() if slot not in wanted}
        return Meta(outputs, "loops", scratch=scratch)
    return Meta(outputs, "numpy", fresh=True)
