"""The cumulative family's CPU out-kernels (structured kernels; meta rules in shapes/cumulative.py), over numpy:
the tensor viewed as lines along the axis ([lines, n]), each scan one pass over the axis (numpy over all the lines
at once), a numpy form that makes its result: each out-kernel hands over the arrays it made (``fresh``,
kernels/structured.fresh_output). The ops' kernels by name, for CUDA's host fallbacks (kernels/cuda/cumulative.py),
are the same two (adapter)."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...shapes import cumulative as rules
from ..structured import adapter, fresh_output
from .launches import by_variant


def lines(x, axis):
    """(x as [lines, n] along ``axis``, a function putting a [lines, n] result back in x's layout: a 0-D x's
    result 0-D, Paddle 2.6's)."""
    given = x.shape
    x = x.reshape(given or (1,))
    axis %= x.ndim
    moved = np.moveaxis(x, axis, -1)
    shape = moved.shape

    def back(a):
        return np.ascontiguousarray(np.moveaxis(a.reshape(shape), -1, axis)).reshape(given)

    return moved.reshape(-1, shape[-1]), back


def _reverse_cumsum(a):
    return np.flip(np.cumsum(np.flip(a, 1), axis=1), 1)


def _cumprod_grad(ins, attrs):
    """Before a line's first zero z: (sum over i >= j of dOut[i] Out[i]) / X[j] (Out is 0 from z on); at
    z: the sum over i >= z of dOut[i] times the product of X up to i with X[z] taken as 1; after: 0."""
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    (fx, back), fo, fd = lines(x, attrs["dim"]), lines(out, attrs["dim"])[0], lines(dout, attrs["dim"])[0]
    n = fx.shape[1]
    zero = fx == 0
    first = np.where(zero.any(axis=1), zero.argmax(axis=1), n)[:, None]
    j = np.arange(n)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        before = _reverse_cumsum(fd * fo) / fx
    ones_at_zero = np.where(j == first, np.ones_like(fx), fx)
    at_zero = _reverse_cumsum(fd * np.cumprod(ones_at_zero, axis=1))
    dx = np.where(j < first, before, np.where(j == first, at_zero, 0))
    return {"X@GRAD": back(dx.astype(x.dtype, copy=False))}


def _cum_extreme(greater):
    def kernel(ins, attrs):
        x = ins["x"]
        flat, back = lines(x, attrs["axis"])
        out, idx = np.empty_like(flat), np.empty(flat.shape, dtype=np.int64)
        best, where = flat[:, 0].copy(), np.zeros(flat.shape[0], dtype=np.int64)
        floats = flat.dtype.kind == "f"
        for i in range(flat.shape[1]):
            v = flat[:, i]
            take = (v >= best) if greater else (v <= best)
            if floats:
                take = np.isnan(v) | (~np.isnan(best) & take)
            best, where = np.where(take, v, best), np.where(take, i, where)
            out[:, i], idx[:, i] = best, where
        dtype = convert_dtype(attrs["dtype"])
        return {"out": back(out), "indices": back(idx).astype(dtype, copy=False)}

    return kernel


_cummax, _cummin = _cum_extreme(True), _cum_extreme(False)


def _cum_extreme_grad(ins, attrs):
    x, idx, dout = ins["x"], ins["indices"], ins["out@GRAD"]
    (fi, back), fd = lines(idx, attrs["axis"]), lines(dout, attrs["axis"])[0]
    dx = np.zeros(fd.shape, dtype=dout.dtype)
    np.add.at(dx, (np.arange(fd.shape[0])[:, None], fi.astype(np.int64)), fd)
    return {"x@GRAD": back(dx).reshape(x.shape)}


def _log_add_exp(a, b):
    """max + log1p(exp(min - max)) of the running value ``a`` and the next ``b``, the max where it is -inf, as
    Paddle 2.6's LogSumExp functor: two +inf give NaN (inf - inf; pe kept +inf before), so a line's running
    value is NaN from its second +inf on; its max and min are std::max's and std::min's (the first argument
    unless the second is larger, smaller), so a NaN ``b`` counts as a copy of ``a`` (+log 2)."""
    hi, lo = np.where(a < b, b, a), np.where(b < a, b, a)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(hi == -np.inf, hi, hi + np.log1p(np.exp(lo - hi)))


def log_scan(flat, exclusive, reverse):
    """logcumsumexp of each line of ``flat`` [lines, n], from the dtype's lowest value."""
    if reverse:
        flat = np.flip(flat, 1)
    out = np.empty_like(flat)
    acc = np.full(flat.shape[0], np.finfo(flat.dtype).min, dtype=flat.dtype)
    for i in range(flat.shape[1]):
        if exclusive:
            out[:, i] = acc
        acc = _log_add_exp(acc, flat[:, i])
        if not exclusive:
            out[:, i] = acc
    return np.flip(out, 1) if reverse else out


def _layout(x, attrs):
    if attrs["flatten"]:
        return x.reshape(1, -1), lambda a: a.reshape(-1)
    return lines(x, attrs["axis"])


def _logcumsumexp(ins, attrs):
    flat, back = _layout(ins["X"], attrs)
    return {"Out": back(log_scan(flat, attrs["exclusive"], attrs["reverse"]))}


def _logcumsumexp_grad(ins, attrs):
    """dX[j] = exp(X[j]) * (the scan in the other direction of dOut exp(-Out)), for dOut's positive and
    negative parts apart, in log space: Paddle 2.6's LogcumsumexpGradKernel, whose log of a part's zero is the
    dtype's lowest value (not -inf: exp(lowest + inf) is inf where exp(-inf + inf) is NaN)."""
    x = ins["X"]
    (fx, _), (fo, _), (fd, _) = (_layout(ins[s], attrs) for s in ("X", "Out", "Out@GRAD"))
    out = np.zeros_like(fx)
    lowest = np.finfo(fx.dtype).min
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for sign in (1, -1):
            part = np.where(sign * fd > 0, np.log(np.abs(fd)), lowest).astype(fx.dtype) - fo
            out += sign * np.exp(fx + log_scan(part, attrs["exclusive"], not attrs["reverse"]))
    if attrs["flatten"]:
        return {"X@GRAD": out.reshape(x.shape)}
    return {"X@GRAD": lines(x, attrs["axis"])[1](out)}


def _fresh(name, compute):
    """The out-kernel putting ``compute``'s new arrays in ``outs`` (each of its Meta's shape and dtype)."""

    def out(ins, outs, attrs, meta):
        got = compute(ins, attrs)
        inputs = tuple(ins.values())
        for slot, spec in meta.outputs.items():
            outs[slot] = fresh_output(got[slot], spec, inputs)

    out.__name__ = out.__qualname__ = name
    out.launches = None
    return out


def _accumulate(ins, outs, attrs, meta):
    """cumprod: numpy's running product along the axis into the buffer (each line's products in order, as along
    the moved lines)."""
    x, out = ins["X"], outs["Out"]
    if not x.ndim:
        x, out = x.reshape(1), out.reshape(1)
    np.cumprod(x, axis=meta.args[0], dtype=x.dtype, out=out)


CUMPROD = by_variant("cumprod_out", None, accumulate=_accumulate)
CUMPROD_GRAD = _fresh("cumprod_grad_out", _cumprod_grad)
CUMMAX = _fresh("cummax_out", _cummax)
CUMMIN = _fresh("cummin_out", _cummin)
CUM_EXTREME_GRAD = _fresh("cum_extreme_grad_out", _cum_extreme_grad)
LOGCUMSUMEXP = _fresh("logcumsumexp_out", _logcumsumexp)
LOGCUMSUMEXP_GRAD = _fresh("logcumsumexp_grad_out", _logcumsumexp_grad)

cumprod = adapter(rules.cumprod_meta, CUMPROD, "cumprod")
cumprod_grad = adapter(rules.cumprod_grad_meta, CUMPROD_GRAD, "cumprod_grad")
cummax = adapter(rules.cum_extreme_meta, CUMMAX, "cummax")
cummin = adapter(rules.cum_extreme_meta, CUMMIN, "cummin")
cummax_grad = adapter(rules.cum_extreme_grad_meta, CUM_EXTREME_GRAD, "cummax_grad")
cummin_grad = adapter(rules.cum_extreme_grad_meta, CUM_EXTREME_GRAD, "cummin_grad")
logcumsumexp = adapter(rules.logcumsumexp_meta, LOGCUMSUMEXP, "logcumsumexp")
logcumsumexp_grad = adapter(rules.logcumsumexp_grad_meta, LOGCUMSUMEXP_GRAD, "logcumsumexp_grad")
