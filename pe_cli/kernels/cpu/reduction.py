"""Kernels of ops/reduction.py: the structured kernels' CPU out-kernels (pe_cli/shapes/structured.py) of mean,
reduce_sum/mean/max/min/prod/all/any (reduce_amax/amin), cumsum, squared_l2_norm, logsumexp and their
gradients, ``out(ins, outs, attrs, meta)``, computing the variant their meta rule chose
(pe_cli/shapes/reduction.py) into the buffers they are handed (``MEAN``, ``MEAN_GRAD``, ``REDUCE[op]``,
``REDUCE_GRAD[op]``, ``CUMSUM``, ...; mean's and mean_grad's ``launches``: a planned step's launch of the same
loop, pe_cli/executor/step_plan.py); and numpy kernels of the norms (frobenius_norm, p_norm, l1_norm)."""

import numpy as np

from ..structured import adapter, fresh_output
from .launches import by_variant
from .launches import Launch, flat as flat_arg, one
from .runtime.loops import flat, lazy, loop_or
from ...shapes import reduction as meta_rules

_loops = lazy("_reduce_loops")


def _mean_loop(ins, outs, attrs, meta):
    args = (flat(ins["X"]), outs["Out"].reshape(-1))
    loop_or(_mean_numpy, _loops().mean, *args)(*args)


def _mean_sum(ins, outs, attrs, meta):
    # numpy's own mean (the same sum, then / count), without ndarray.mean's Python wrapper,
    # which was measured at 50 us on its first call of each LeNet-5 step
    _mean_numpy(ins["X"], outs["Out"].reshape(-1))


def _mean_array(ins, outs, attrs, meta):
    x = ins["X"]
    np.copyto(outs["Out"], np.array(x.mean(), dtype=x.dtype))


def _mean_numpy(x, out):
    """_reduce_loops.mean's bits by numpy (its replica while the loop compiles; float16's mean)."""
    out[0] = np.add.reduce(x, axis=None) / x.dtype.type(x.size)


def _mean_grad_loop(ins, outs, attrs, meta):
    args = (flat(ins["Out@GRAD"]), outs["X@GRAD"].reshape(-1))
    loop_or(_mean_grad_numpy, _loops().mean_grad, *args)(*args)


def _mean_grad_array(ins, outs, attrs, meta):
    _mean_grad_numpy(ins["Out@GRAD"], outs["X@GRAD"])


def _mean_grad_numpy(dout, dx):
    dx.fill(dout.reshape(-1)[0] / max(dx.size, 1))  # (np.full's Python wrapper: a third more)


def mean_launches(op, table, meta):
    """A planned step's launch of mean's "loop" variant, or None (the op then runs as a Python launch)."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if meta.variant != "loop" or None in (x, out):
        return None
    return [Launch(_loops().mean, [flat_arg(table, x), ("var", out, (1,))], writes=[out])]


def mean_grad_launches(op, table, meta):
    """A planned step's launch of mean_grad's "loop" variant, or None."""
    dout, dx = one(op, "Out@GRAD"), one(op, "X@GRAD", "outputs")
    if meta.variant != "loop" or None in (dout, dx):
        return None
    return [Launch(_loops().mean_grad, [flat_arg(table, dout), flat_arg(table, dx)], writes=[dx])]


MEAN = by_variant("mean_out", mean_launches, loop=_mean_loop, sum=_mean_sum, numpy=_mean_array)
MEAN_GRAD = by_variant("mean_grad_out", mean_grad_launches, loop=_mean_grad_loop, numpy=_mean_grad_array)


def _reduction(fn, name):
    """A reduce_* op's out-kernel: numpy's ``fn`` over the Meta's axes of X cast to Out's dtype (a fresh variant)."""

    def out(ins, outs, attrs, meta):
        spec = meta.outputs["Out"]
        x = ins["X"].astype(spec[1], copy=False)
        result = np.asarray(fn(x, axis=meta.args[0], keepdims=attrs["keep_dim"]), dtype=x.dtype)
        outs["Out"] = fresh_output(result, spec, (ins["X"], x))

    out.__name__ = out.__qualname__ = name
    return out


def _mean_axis(ins, outs, attrs, meta):
    before, n, after = meta.args[1]
    args = (ins["X"].reshape(before, n, after), outs["Out"].reshape(before, after))
    loop_or(_mean_axis_numpy, _loops().mean_axis, *args)(*args)


def _mean_axis_numpy(x, out):
    """_reduce_loops.mean_axis's bits by numpy (its replica while the loop compiles)."""
    np.mean(x, axis=1, out=out)


def _mean_axis_launches(op, table, meta):
    """A planned step's launch of reduce_mean's "mean_axis" variant, or None."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if meta.variant != "mean_axis" or None in (x, out):
        return None
    before, n, after = meta.args[1]
    return [Launch(_loops().mean_axis, [("var", x, (before, n, after)), ("var", out, (before, after))], writes=[out])]


REDUCE = {
    op: _reduction(fn, f"{op}_out")
    for op, fn in (
        ("reduce_sum", np.sum),
        ("reduce_max", np.max),
        ("reduce_min", np.min),
        ("reduce_prod", np.prod),
        ("reduce_all", np.all),
        ("reduce_any", np.any),
    )
}


REDUCE["reduce_mean"] = by_variant(
    "reduce_mean_out", _mean_axis_launches, numpy=_reduction(np.mean, "reduce_mean_numpy"), mean_axis=_mean_axis
)


def _spread(ins, outs, attrs, meta):
    """reduce_sum's and reduce_mean's gradient: Out@GRAD (mean's divided by the count: on the reduced values,
    each element the same quotient it would be after the spread: the same bits, a fraction of the work) copied
    over every reduced axis of X@GRAD, cast to its dtype: one pass writing the result (arithmetic on a
    broadcast view runs at a quarter of that speed)."""
    _, kept, count = meta.args
    dout = ins["Out@GRAD"]
    value = dout / count if meta.variant == "spread_mean" and count else dout  # (no values: nothing to divide)
    np.copyto(outs["X@GRAD"], value.reshape(kept), casting="unsafe")


def _spread_axis(ins, outs, attrs, meta):
    before, n, after = meta.args[3]
    args = (ins["Out@GRAD"].reshape(before, after), outs["X@GRAD"].reshape(before, n, after))
    loop_or(_spread_axis_numpy, _loops().spread_mean_axis, *args)(*args)


def _spread_axis_numpy(dout, dx):
    """_reduce_loops.spread_mean_axis's bits by numpy (its replica while the loop compiles)."""
    np.copyto(dx, (dout / dx.shape[1])[:, None, :])


def _spread_axis_launches(op, table, meta):
    """A planned step's launch of reduce_mean_grad's "spread_mean_axis" variant, or None."""
    dout, dx = one(op, "Out@GRAD"), one(op, "X@GRAD", "outputs")
    if meta.variant != "spread_mean_axis" or None in (dout, dx):
        return None
    before, n, after = meta.args[3]
    args = [("var", dout, (before, after)), ("var", dx, (before, n, after))]
    return [Launch(_loops().spread_mean_axis, args, writes=[dx])]


def _extreme_grad(ins, outs, attrs, meta):
    """reduce_max's and reduce_min's gradient: Out@GRAD to every element of its group equal to the extreme, as
    Paddle's (Fluid 1.8's and 2.6's MaxOrMinGradFunctor: ties each take all of it), zeros elsewhere."""
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    _, kept = meta.args
    hit = x == out.reshape(kept)
    outs["X@GRAD"] = fresh_output((hit * dout.reshape(kept)).astype(x.dtype, copy=False), meta.outputs["X@GRAD"], ())


def _prod_grad(ins, outs, attrs, meta):
    """dX = dOut * the product of the other elements of the group: exclusive products from the
    left times those from the right, so zeros in X are exact (no division)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    axes, kept_shape = meta.args
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + list(axes))
    rows = moved.reshape(-1, int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    left = np.ones_like(rows)
    right = np.ones_like(rows)
    if rows.shape[1] > 1:
        left[:, 1:] = np.cumprod(rows[:, :-1], axis=1)
        right[:, :-1] = np.cumprod(rows[:, :0:-1], axis=1)[:, ::-1]
    others = (left * right).reshape(moved.shape)
    others = np.transpose(others, np.argsort(kept + list(axes)))
    result = (others * dout.reshape(kept_shape)).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))


REDUCE_GRAD = {
    "reduce_sum_grad": by_variant("reduce_sum_grad_out", None, spread_sum=_spread),
    "reduce_mean_grad": by_variant(
        "reduce_mean_grad_out", _spread_axis_launches, spread_mean=_spread, spread_mean_axis=_spread_axis
    ),
    "reduce_extreme_grad": by_variant("reduce_extreme_grad_out", None, numpy=_extreme_grad),
    "reduce_prod_grad": by_variant("reduce_prod_grad_out", None, numpy=_prod_grad),
}


def _cumsum_into(ins, outs, attrs, meta):
    axis, work = meta.args
    x = ins["X"].reshape(work)
    np.cumsum(x, axis=axis, dtype=x.dtype, out=outs["Out"].reshape(work))


def _cumsum_numpy(ins, outs, attrs, meta):
    """cumsum exclusive (each element left out of its own sum: the first is 0) or reverse (from the end)."""
    axis, work = meta.args
    x = ins["X"].reshape(work)
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if attrs["exclusive"]:
        shifted = np.zeros_like(out)
        lead = (slice(None),) * axis
        shifted[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
        out = shifted
    if attrs["reverse"]:
        out = np.flip(out, axis)
    spec = meta.outputs["Out"]
    outs["Out"] = fresh_output(np.ascontiguousarray(out).reshape(spec[0]), spec, (ins["X"],))


def _squared_l2_norm(ins, outs, attrs, meta):
    x = ins["X"]
    outs["Out"][0] = np.sum(np.square(x), dtype=x.dtype)


def _squared_l2_norm_grad(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    np.multiply(x, x.dtype.type(2) * dout.reshape(-1)[0].astype(x.dtype), out=outs["X@GRAD"], casting="unsafe")


CUMSUM = by_variant("cumsum_out", None, accumulate=_cumsum_into, numpy=_cumsum_numpy)
SQUARED_L2_NORM = by_variant("squared_l2_norm_out", None, numpy=_squared_l2_norm)
SQUARED_L2_NORM_GRAD = by_variant("squared_l2_norm_grad_out", None, numpy=_squared_l2_norm_grad)


def _frobenius_norm(ins, outs, attrs, meta):
    spec, (axes,) = meta.outputs["Out"], meta.args
    x = ins["X"].astype(spec[1], copy=False)
    out = np.sqrt(np.sum(np.square(x), axis=axes, keepdims=attrs["keep_dim"], dtype=x.dtype))
    outs["Out"] = fresh_output(np.asarray(out, dtype=x.dtype), spec, (ins["X"], x))


def _frobenius_norm_grad(ins, outs, attrs, meta):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    (kept,) = meta.args
    norm = out.astype(x.dtype, copy=False).reshape(kept)
    result = (x / (norm + x.dtype.type(1e-12)) * dout.reshape(kept)).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))


def _p_norm(form):
    """p_norm's out-kernel of a porder's form, along the Meta's axis of X's view (X flattened for asvector)."""

    def out(ins, outs, attrs, meta):
        (axis, work), spec = meta.args, meta.outputs["Out"]
        x, p = ins["X"].reshape(work), attrs["porder"]
        if form == "count":  # Paddle 2.x's: how many are not 0
            result = np.sum(x != 0, axis=axis, keepdims=True).astype(x.dtype)
        elif form == "extreme":  # Paddle 2.x's: the largest |x| (inf), the smallest (-inf)
            result = (np.max if p > 0 else np.min)(np.abs(x), axis=axis, keepdims=True)
        else:
            root = x.dtype.type(np.float32(1) / np.float32(p))  # Paddle's 1.0f / porder, a float's
            result = np.power(np.sum(np.power(np.abs(x), x.dtype.type(p)), axis=axis, keepdims=True), root)
        outs["Out"] = fresh_output(result.astype(x.dtype, copy=False).reshape(spec[0]), spec, (ins["X"],))

    return out


def _p_norm_grad_zeros(ins, outs, attrs, meta):
    outs["X@GRAD"].fill(0)  # porder 0, a count: no gradient


def _p_norm_grad(form):
    """p_norm_grad's out-kernel of a porder's form (+-inf: to every element whose |x| is the norm)."""

    def out(ins, outs, attrs, meta):
        (work, kept), spec = meta.args, meta.outputs["X@GRAD"]
        x, norm, d = ins["X"].reshape(work), ins["Out"].reshape(kept), ins["Out@GRAD"].reshape(kept)
        if form == "extreme":
            dx = d * np.sign(x) * (np.abs(x) == norm)
        else:
            p, one, eps = x.dtype.type(attrs["porder"]), x.dtype.type(1), x.dtype.type(attrs["epsilon"])
            dx = np.power(np.abs(x), p - one) / (np.power(norm, p - one) + eps) * d * np.sign(x)
        outs["X@GRAD"] = fresh_output(dx.astype(x.dtype, copy=False).reshape(spec[0]), spec, tuple(ins.values()))

    return out


def _l1_norm(ins, outs, attrs, meta):
    x = ins["X"]
    outs["Out"][...] = np.sum(np.abs(x), dtype=x.dtype)


def _l1_norm_grad(ins, outs, attrs, meta):
    x, dout = ins["X"], ins["Out@GRAD"]
    result = (np.sign(x) * dout.reshape(-1)[0]).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], (x, dout))


FROBENIUS_NORM = by_variant("frobenius_norm_out", None, numpy=_frobenius_norm)
FROBENIUS_NORM_GRAD = by_variant("frobenius_norm_grad_out", None, numpy=_frobenius_norm_grad)
_FORMS = ("count", "extreme", "power")
P_NORM = by_variant("p_norm_out", None, **{f: _p_norm(f) for f in _FORMS})
P_NORM_GRAD = by_variant(
    "p_norm_grad_out", None, count=_p_norm_grad_zeros, extreme=_p_norm_grad("extreme"), power=_p_norm_grad("power")
)
L1_NORM = by_variant("l1_norm_out", None, numpy=_l1_norm)
L1_NORM_GRAD = by_variant("l1_norm_grad_out", None, numpy=_l1_norm_grad)


def _even_extreme_grad(ins, outs, attrs, meta):
    """reduce_amax's and reduce_amin's gradient: Out@GRAD shared evenly by the elements equal to Out."""
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    axes, kept = meta.args
    hit = x == out.reshape(kept)
    count = hit.sum(axis=axes, keepdims=True)
    result = (hit * (dout.reshape(kept) / count)).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))


def _logsumexp(ins, outs, attrs, meta):
    """max + log(sum(exp(X - max))) over the Meta's axes, as Paddle 2.6's LogsumexpFunctor: NaN where the max is
    +inf or every value -inf (inf - inf; pe shifted such lines by 0 before, giving +inf and -inf)."""
    x, (axes,) = ins["X"], meta.args
    top = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros([1] * x.ndim, x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    result = (out if attrs["keepdim"] else np.squeeze(out, axis=axes)).astype(x.dtype, copy=False)
    outs["Out"] = fresh_output(result, meta.outputs["Out"], (x,))


def _logsumexp_grad(ins, outs, attrs, meta):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    (kept,) = meta.args
    result = (dout.reshape(kept) * np.exp(x - out.reshape(kept))).astype(x.dtype, copy=False)
    outs["X@GRAD"] = fresh_output(result, meta.outputs["X@GRAD"], tuple(ins.values()))


REDUCE_GRAD["reduce_even_extreme_grad"] = by_variant("reduce_even_extreme_grad_out", None, numpy=_even_extreme_grad)
LOGSUMEXP = by_variant("logsumexp_out", None, numpy=_logsumexp)
LOGSUMEXP_GRAD = by_variant("logsumexp_grad_out", None, numpy=_logsumexp_grad)

# CUDA's host fallbacks (kernels/cuda/reduction.py HOST_OPS) find these by op name: the same meta rules and
# out-kernels as ``kernel(ins, attrs, ctx)``
reduce_even_extreme_grad = adapter(
    meta_rules.reduce_grad_meta("numpy"), REDUCE_GRAD["reduce_even_extreme_grad"], "reduce_even_extreme_grad"
)
logsumexp = adapter(meta_rules.logsumexp_meta, LOGSUMEXP, "logsumexp")
logsumexp_grad = adapter(meta_rules.logsumexp_grad_meta, LOGSUMEXP_GRAD, "logsumexp_grad")
p_norm = adapter(meta_rules.p_norm_meta, P_NORM, "p_norm")
p_norm_grad = adapter(meta_rules.p_norm_grad_meta, P_NORM_GRAD, "p_norm_grad")
