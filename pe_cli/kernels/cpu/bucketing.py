"""Out-kernels of pe_cli/ops/bucketing.py (structured kernels; their meta rules: shapes/bucketing.py), numpy's
forms (fresh); histogram's bins as Paddle 2.6's kernel computes them."""

import numpy as np

from ...shapes import bucketing as rules
from ..structured import adapter, fresh_output


def searchsorted_out(ins, outs, attrs, meta):
    s, v = ins["SortedSequence"], ins["Values"]
    side = "right" if attrs["right"] else "left"
    if s.ndim == 1:
        out = np.searchsorted(s, v, side=side)
    else:
        rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
        out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(rows_s, rows_v)]).reshape(v.shape)
    outs["Out"] = fresh_output(out.astype(meta.outputs["Out"][1]), meta.outputs["Out"], ins.values())


def histogram_out(ins, outs, attrs, meta):
    """Paddle's HistogramKernel: [min, max] in X's dtype (the data's range where they are equal, then widened
    by 1 each way where still equal); bin = (x - min) * bins / (max - min), x == max in the last bin."""
    x = ins["X"].reshape(-1)
    bins = int(attrs["bins"])
    t = x.dtype.type
    lo, hi = t(attrs["min"]), t(attrs["max"])
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    inside = x[(x >= lo) & (x <= hi)]
    if x.dtype.kind == "f":
        idx = ((inside - lo) * t(bins) / (hi - lo)).astype(np.int64)
    else:
        idx = (inside.astype(np.int64) - int(lo)) * bins // (int(hi) - int(lo))
    idx = np.minimum(idx, bins - 1)
    outs["Out"] = np.bincount(idx, minlength=bins).astype(np.int64)


def _repeats(ins, attrs):
    r = ins.get("RepeatsTensor")
    return np.asarray(r).reshape(-1).astype(np.int64) if r is not None else int(attrs["Repeats"])


def repeat_interleave_out(ins, outs, attrs, meta):
    x = ins["X"]
    d = attrs["dim"] % max(x.ndim, 1)
    outs["Out"] = np.repeat(x.reshape(x.shape or (1,)), _repeats(ins, attrs), axis=d)  # (a new array: numpy's)


def repeat_interleave_grad_out(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    d = attrs["dim"] % max(x.ndim, 1)
    n = x.shape[d] if x.ndim else 1
    r = _repeats(ins, attrs)
    counts = np.full(n, r) if np.isscalar(r) or np.ndim(r) == 0 else r
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    dx = np.add.reduceat(dout, starts, axis=d) if dout.shape[d] else np.zeros(x.shape, dout.dtype)
    dx = np.where(np.reshape(counts > 0, [-1 if i == d else 1 for i in range(dout.ndim)]), dx, 0)
    outs["X@GRAD"] = fresh_output(dx.reshape(x.shape).astype(x.dtype, copy=False), meta.outputs["X@GRAD"], ins.values())


# (the kernels by name CUDA runs on the host: kernels/cuda/bucketing.py's HOST_OPS)
searchsorted = adapter(rules.searchsorted_meta, searchsorted_out, "searchsorted")
histogram = adapter(rules.histogram_meta, histogram_out, "histogram")
repeat_interleave = adapter(rules.repeat_interleave_meta, repeat_interleave_out, "repeat_interleave")
repeat_interleave_grad = adapter(
    rules.repeat_interleave_grad_meta, repeat_interleave_grad_out, "repeat_interleave_grad"
)
