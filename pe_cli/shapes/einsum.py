"""An einsum equation with its ellipses spelled out as letters (shared by the einsum op's shape
inference and its kernels): numpy's rules, the implicit output being the broadcast dims then the
labels seen once, in alphabetical order; einsum's and einsum_grad's meta rules (structured kernels, their
out-kernels in kernels/<device>/einsum.py)."""

import string

import numpy as np

from .reduction import scalar_shape
from .structured import Meta


def explicit(equation, ranks):
    """(one label string per operand, the output's labels) for operands of ``ranks``; raises
    ValueError on an equation that does not fit them."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(ranks):
        raise ValueError(f"einsum: equation '{equation}' names {len(subs)} operands, {len(ranks)} given")
    free = [c for c in string.ascii_letters if c not in eq]
    spans = [rank - (len(s) - 3) if "..." in s else 0 for s, rank in zip(subs, ranks)]
    width = max(spans + [0])
    dots = "".join(free[:width])
    out_subs = []
    for s, span, rank in zip(subs, spans, ranks):
        full = s.replace("...", dots[width - span :]) if "..." in s else s
        if len(full) != rank or not all(c in string.ascii_letters for c in full):
            raise ValueError(f"einsum: '{s}' of equation '{equation}' does not fit an operand of {rank} dims")
        out_subs.append(full)
    if arrow:
        out = rhs.replace("...", dots)
    else:
        labels = "".join(s.replace("...", "") for s in subs)
        out = dots + "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    if any(c not in "".join(out_subs) for c in out) or len(set(out)) != len(out):
        raise ValueError(
            f"einsum: the output '{rhs}' of equation '{equation}' names a label no operand has, or one twice"
        )
    return out_subs, out


def label_sizes(subs, shapes):
    """label -> its size: the largest of the dims it labels (a dim of 1 broadcasts, one of 0 is empty; -1: unknown)."""
    sizes = {}
    for s, shape in zip(subs, shapes):
        for label, d in zip(s, shape):
            have = sizes.get(label, 1)
            if d > 1 or have > 1:
                sizes[label] = max(d, have)
            elif d == 0 or have == 0:
                sizes[label] = 0
            else:
                sizes[label] = -1 if d < 0 or have < 0 else 1
    return sizes


def einsum_meta(attrs, ins, facts):
    """einsum's Out: the output labels' sizes (a full contraction 0-D where ``facts.zero_dim``, else [1]), the
    first operand's dtype; "numpy" (fresh: numpy's einsum's array). An equation this parser refuses is given the
    shape numpy's einsum makes of operands of these shapes, or numpy's error."""
    ops = ins["Operands"]
    dtype = np.dtype(ops[0].dtype)
    try:
        subs, out = explicit(attrs["equation"], [len(o.shape) for o in ops])
    except ValueError:  # (numpy's reading of it, on operands of no memory)
        dummies = [np.broadcast_to(np.zeros((), o.dtype), o.shape) for o in ops]
        shape = np.einsum(attrs["equation"], *dummies).shape
    else:
        sizes = label_sizes(subs, [o.shape for o in ops])
        shape = tuple(sizes[c] for c in out)
    return Meta({"Out": (shape or scalar_shape(facts.zero_dim), dtype)}, "numpy", fresh=True)


def einsum_grad_meta(attrs, ins, facts):
    """einsum_grad's Operands@GRAD: one per operand, of its shape and dtype; "numpy" (fresh)."""
    ops = ins["Operands"]
    explicit(attrs["equation"], [len(o.shape) for o in ops])  # (its refusal of the equation, before any work)
    return Meta({"Operands@GRAD": [(tuple(o.shape), np.dtype(o.dtype)) for o in ops]}, "numpy", fresh=True)
