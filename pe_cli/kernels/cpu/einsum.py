"""einsum: numpy's einsum forward; the gradient of each operand is the einsum of Out@GRAD with the
other operands (all broadcast to the labels' sizes), spread over the labels only that operand has,
put on the diagonal of a label it repeats and summed over the dims it broadcasts. The out-kernels of
shapes/einsum.py's meta rules (``fresh``: the arrays numpy made handed over)."""

import numpy as np

from ...shapes.einsum import einsum_grad_meta, einsum_meta, explicit, label_sizes
from ..structured import adapter, fresh_kernel, fresh_output


def _einsum(ins, outs, attrs, meta):
    ops = ins["Operands"]
    out = np.einsum(attrs["equation"], *ops)
    spec = meta.outputs["Out"]
    outs["Out"] = fresh_output(np.asarray(out, dtype=ops[0].dtype).reshape(spec[0]), spec, ops)


def _operand_grad(i, subs, out, full, g, sizes, shape, dtype):
    s = subs[i]
    others = [j for j in range(len(subs)) if j != i]
    unique = "".join(dict.fromkeys(s))
    seen = set(out).union(*(subs[j] for j in others))
    kept = "".join(c for c in unique if c in seen)
    grad = np.einsum(",".join([out] + [subs[j] for j in others]) + "->" + kept, g, *(full[j] for j in others))
    for pos, c in enumerate(unique):
        if c not in seen:
            grad = np.expand_dims(grad, pos)
    grad = np.broadcast_to(grad, [sizes[c] for c in unique])
    if len(unique) != len(s):
        spread = np.zeros([sizes[c] for c in s], dtype=grad.dtype)
        np.einsum(f"{s}->{unique}", spread)[...] = grad
        grad = spread
    axes = tuple(k for k, (c, d) in enumerate(zip(s, shape)) if d == 1 and sizes[c] > 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return np.ascontiguousarray(grad, dtype=dtype)


def _einsum_grad(ins, attrs):
    ops = ins["Operands"]
    subs, out = explicit(attrs["equation"], [o.ndim for o in ops])
    sizes = label_sizes(subs, [o.shape for o in ops])
    full = [np.broadcast_to(o, [sizes[c] for c in s]) for s, o in zip(subs, ops)]
    g = ins["Out@GRAD"].reshape([sizes[c] for c in out])
    return {"Operands@GRAD": [_operand_grad(i, subs, out, full, g, sizes, o.shape, o.dtype) for i, o in enumerate(ops)]}


EINSUM = _einsum
EINSUM_GRAD = fresh_kernel(_einsum_grad, "einsum_grad_out")
einsum = adapter(einsum_meta, EINSUM, "einsum")  # (the kernels by name: CUDA's host fallbacks)
einsum_grad = adapter(einsum_grad_meta, EINSUM_GRAD, "einsum_grad")
