"""An einsum equation with its ellipses spelled out as letters (shared by the einsum op's shape
inference and its kernels): numpy's rules, the implicit output being the broadcast dims then the
labels seen once, in alphabetical order."""

import string


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
