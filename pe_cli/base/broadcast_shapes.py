"""Shape rules of Paddle 2.x's broadcasting ops, shared by their shape inference (pe_cli/ops) and their
kernels: numpy's broadcast of several shapes, expand_v2's target, flatten_contiguous_range's merged dims.
An unknown dim is -1."""

from .dims import is_known, numel


def broadcast(shapes):
    """numpy's broadcast of ``shapes`` (an unknown dim, -1, broadcasts with anything), or None."""
    rank = max(len(s) for s in shapes)
    out = []
    for dims in zip(*[[1] * (rank - len(s)) + list(s) for s in shapes]):
        known = {d for d in dims if d >= 0 and d != 1}
        if len(known) > 1:
            return None
        out.append(known.pop() if known else (-1 if any(d < 0 for d in dims) else 1))
    return out


def _axes(rank, a):
    """(start, stop) of flatten_contiguous_range, negative axes counted from the end (a 0-D X as [1])."""
    rank = max(rank, 1)
    return a["start_axis"] % rank if -rank <= a["start_axis"] < rank else None, a["stop_axis"] % rank if -rank <= a[
        "stop_axis"
    ] < rank else None


def flattened_shape(x, a):
    """Out's shape (None where the axes are out of range or start > stop)."""
    x = list(x) or [1]
    start, stop = _axes(len(x), a)
    if start is None or stop is None or start > stop:
        return None
    mid = x[start : stop + 1]
    return x[:start] + [numel(mid) if is_known(mid) else -1] + x[stop + 1 :]


def expanded_shape(x, shape):
    """expand_v2's Out shape: ``shape`` (at least X's rank) with -1 taking X's dim; None where a dim of X
    neither is 1 nor equals the target's (an unknown dim, -1, matches anything)."""
    if len(shape) < len(x):
        return None
    lead = len(shape) - len(x)
    out = []
    for i, t in enumerate(shape):
        d = x[i - lead] if i >= lead else 1
        if t == -1 and i >= lead:
            out.append(d)
        elif t < 1 and t != -1 or (i < lead and t == -1):
            return None
        elif d not in (1, t, -1) and t != -1:
            return None
        else:
            out.append(t)
    return out
