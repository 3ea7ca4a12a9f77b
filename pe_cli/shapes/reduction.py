"""The reduction family's rules shared by the kernels of both devices: the axes a reduction folds and the
shape of a result with no dims left; and the meta rules (structured kernels, shapes/structured.py) of mean,
reduce_sum/mean/max/min/prod/all/any (reduce_amax/amin: reduce_max's/min's), cumsum, squared_l2_norm,
logsumexp and their gradients, which decide once per shape signature of their inputs the output's shape and
dtype and the variant computing it (the CPU out-kernels: kernels/cpu/reduction.py):

- mean (Out of X's dtype, [1], or 0-D where the op says so: ``facts.zero_dim``): "loop" (_reduce_loops.mean,
  numpy's pairwise sum over float32 or float64 X of 1 to ``MEAN_LOOP_MAX`` - 1 values), "sum" (numpy's
  add.reduce then the division: other float dtypes of that size), "numpy" (ndarray.mean cast to X's dtype:
  the rest);
- mean_grad (X@GRAD of X's shape and dtype): "loop" (_reduce_loops.mean_grad: float32 or float64 X and
  Out@GRAD of one dtype), else "numpy";
- reduce_* (X cast to out_dtype first, but reduce_all/any): numpy's reduction over ``Meta.args``' axes,
  a ``fresh`` variant ("numpy"), or reduce_mean's "mean_axis" (one axis with values after it: axis_split);
  their gradients: "spread_sum", "spread_mean" (Out@GRAD, divided by the count for mean, copied over the
  reduced axes into X@GRAD; "spread_mean_axis": over one axis, float32 or float64, by a loop) or numpy's forms
  (max, min, prod, amax/amin's shared gradient: "numpy", fresh);
- cumsum, squared_l2_norm, logsumexp and their gradients: below, at their rules.

reduce_sum/mean/max/min (and their gradients) take each of ``dim`` modulo X's rank in order, as their kernels
always took them (a dim twice is numpy's refusal; a 0-D X's dim 0 or -1 folds nothing, Paddle 2.6's);
reduce_prod/all/any the sorted distinct dims (``sorted_axes``). A rule refuses nothing the shape rule did not: where the
kernels' numpy raised, numpy raises the same."""

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from ..base.dtypes import convert_dtype
from .structured import Meta

_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
MEAN_LOOP_MAX = 1 << 24  # mean's loop and numpy's sum below it; ndarray.mean from there (and empty X)


def scalar_shape(zero_dim):
    """The shape of a reduction's result with no dims left: 0-D where the op says so (``zero_dim``:
    ``Operator.zero_dim``, a paddle.* call in a Paddle 2.x program, framework/program_release.py;
    a kernel's ``ctx.zero_dim``), [1] as in Fluid 1.8."""
    return () if zero_dim else (1,)


def reduces_all(attrs):
    """Whether a reduction folds every dim: ``reduce_all``, or an empty ``dim`` (Paddle 2.x saves
    ``dim=[]`` for a reduction over all axes, and its kernels read it so; Fluid 1.8 refused an empty
    dim; docs/COMPAT.md, "Reductions saved with dim=[]")."""
    return bool(attrs["reduce_all"]) or not len(attrs["dim"])


def reduce_axes(x, attrs):
    return sorted_axes(x.shape, attrs)


def kl_scale(x, reduction):
    """kldiv_loss's divisor: X's size for reduction 'mean', its batch for 'batchmean', else 1."""
    return {"mean": x.size, "batchmean": x.shape[0] if x.ndim else 1}.get(reduction, 1)


def mean_meta(attrs, ins, facts):
    """mean's output and variant (above)."""
    dtype = np.dtype(ins["X"].dtype)
    outputs = {"Out": (scalar_shape(facts.zero_dim), dtype)}
    if dtype.kind == "f" and 0 < numel(ins["X"].shape) < MEAN_LOOP_MAX:
        return Meta(outputs, "loop", "mean", ("X",)) if dtype in _LOOP_DTYPES else Meta(outputs, "sum")
    return Meta(outputs, "numpy")


def mean_grad_meta(attrs, ins, facts):
    """mean_grad's output and variant (above)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    dtype = np.dtype(x.dtype)
    outputs = {"X@GRAD": (tuple(x.shape), dtype)}
    if dtype in _LOOP_DTYPES and dout.dtype == dtype:
        return Meta(outputs, "loop", "mean_grad", ("Out@GRAD",))
    return Meta(outputs, "numpy")


def dims_axes(shape, attrs):
    """reduce_sum/mean/max/min's axes: every dim (reduces_all), else each of ``dim`` modulo the rank, in order
    (none of a 0-D X, whose dim 0 or -1 folds its one value: Paddle 2.6's)."""
    if reduces_all(attrs) or not shape:
        return tuple(range(len(shape)))
    return tuple(d % len(shape) for d in attrs["dim"])


def sorted_axes(shape, attrs):
    """reduce_prod/all/any's axes (and the norms'): every dim (reduces_all), else the distinct dims of ``dim``
    modulo the rank, sorted (none of a 0-D X)."""
    rank = len(shape)
    return tuple(range(rank)) if reduces_all(attrs) or not rank else tuple(sorted({d % rank for d in attrs["dim"]}))


_AXES = {False: dims_axes, True: sorted_axes}


def kept_shape(shape, axes):
    """``shape`` with a 1 at each reduced axis: the reduced values' shape against X's."""
    return tuple(1 if i in axes else n for i, n in enumerate(shape))


def _reduced_dtype(attrs, dtype, cast):
    """The dtype a reduction computes in: out_dtype's (a VarType code, -1: X's) where it ``cast``s, else X's."""
    code = attrs.get("out_dtype", -1) if cast else -1
    return np.dtype(dtype) if code in (-1, None) else np.dtype(convert_dtype(code))


def sum_dtype(attrs, dtype, paddle2):
    """reduce_sum's Out dtype: out_dtype's where set; else X's, but int64 for an int32 or bool X in a Paddle 2.x
    program (``paddle2``: Paddle 2.6's reduce_sum promotes them; Fluid 1.8's sums int32 in int32)."""
    out = _reduced_dtype(attrs, dtype, True)
    promote = paddle2 and attrs.get("out_dtype", -1) in (-1, None) and out in (np.int32, np.bool_)
    return np.dtype(np.int64) if promote else out


def axis_split(shape, axes):
    """(before, n, after): X as [the values before the one reduced axis, its n, the values after it], where
    ``axes`` is one axis of n >= 1 values and more than one value lies after it; else None. numpy reduces such
    an axis by adding its slices in order (each output element x[o, 0, j] + x[o, 1, j] + ...), the reduction
    _reduce_loops.mean_axis and its gradient's spread_mean_axis run (one value after it: numpy's pairwise sum)."""
    if len(axes) != 1 or not shape[axes[0]]:
        return None
    split = split_at(shape, axes[0])
    return split if split[2] > 1 else None


def split_at(shape, axis):
    """(the values before ``axis``, its n, the values after it)."""
    return numel(shape[:axis]), shape[axis], numel(shape[axis + 1 :])


def reduce_meta(sums=False, distinct=False, cast=True, mean=False):
    """The meta rule of a reduce_* op: Out's shape (the reduced axes gone, or 1 with keep_dim; none left: [1],
    0-D where the op says so) and dtype (``sums``: reduce_sum's, sum_dtype), numpy's reduction over
    ``Meta.args[0]``'s axes ("numpy", fresh); reduce_mean's (``mean``) over one axis of a float32 or float64 X
    with values after it: "mean_axis", the loop _reduce_loops.mean_axis (``Meta.args[1]``: axis_split)."""
    axes_of = _AXES[distinct]

    def meta(attrs, ins, facts):
        shape = tuple(ins["X"].shape)
        axes = axes_of(shape, attrs)
        out = kept_shape(shape, axes) if attrs["keep_dim"] else tuple(n for i, n in enumerate(shape) if i not in axes)
        x = ins["X"].dtype
        dtype = sum_dtype(attrs, x, facts.paddle2) if sums else _reduced_dtype(attrs, x, cast)
        outputs = {"Out": (out or scalar_shape(facts.zero_dim), dtype)}
        split = axis_split(shape, axes) if mean and dtype == x and dtype in _LOOP_DTYPES else None
        if split is not None:
            return Meta(outputs, "mean_axis", args=(axes, split))
        return Meta(outputs, "numpy", args=(axes,), fresh=True)

    return meta


def reduce_grad_meta(variant, distinct=False):
    """The meta rule of a reduce_*_grad op: X@GRAD of X's shape and dtype, by ``variant`` ("spread_sum",
    "spread_mean", or "numpy": fresh); ``Meta.args``: the reduced axes, Out's shape against X's and (spreads)
    the count of each group."""
    axes_of = _AXES[distinct]

    def meta(attrs, ins, facts):
        shape = tuple(ins["X"].shape)
        axes = axes_of(shape, attrs)
        outputs = {"X@GRAD": (shape, np.dtype(ins["X"].dtype))}
        if variant == "numpy":
            return Meta(outputs, variant, args=(axes, kept_shape(shape, axes)), fresh=True)
        count = int(np.prod([shape[a] for a in axes]))  # (a dim given twice counts twice, as the kernel's did)
        dtype = np.dtype(ins["X"].dtype)
        if variant == "spread_mean" and len(axes) == 1 and dtype in _LOOP_DTYPES and ins["Out@GRAD"].dtype == dtype:
            split = split_at(shape, axes[0])
            return Meta(outputs, "spread_mean_axis", args=(axes, kept_shape(shape, axes), count, split))
        return Meta(outputs, variant, args=(axes, kept_shape(shape, axes), count))

    return meta


def cumsum_meta(attrs, ins, facts):
    """cumsum's Out (X's shape and dtype; ``flatten``, Paddle 2.x's axis=None: 1-D of X's size) and variant:
    "accumulate" (numpy's cumsum into Out) or, exclusive or reverse, "numpy" (fresh); ``Meta.args``: the axis
    (modulo the rank) and the shape it runs over (X flattened, a 0-D X as [1])."""
    shape, dtype = tuple(ins["X"].shape), np.dtype(ins["X"].dtype)
    if attrs.get("flatten"):
        work, axis = (numel(shape),), 0
    else:
        work, axis = shape or (1,), attrs["axis"] % max(len(shape), 1)
    outputs = {"Out": (work if attrs.get("flatten") else shape, dtype)}
    if attrs["exclusive"] or attrs["reverse"]:
        return Meta(outputs, "numpy", args=(axis, work), fresh=True)
    return Meta(outputs, "accumulate", args=(axis, work))


def squared_l2_norm_meta(attrs, ins, facts):
    """squared_l2_norm's Out: [1] of X's dtype."""
    return Meta({"Out": ((1,), np.dtype(ins["X"].dtype))}, "numpy")


def squared_l2_norm_grad_meta(attrs, ins, facts):
    """squared_l2_norm_grad's X@GRAD: X's shape and dtype."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), np.dtype(ins["X"].dtype))}, "numpy")


def logsumexp_axes(shape, attrs):
    """logsumexp's axes: every dim (reduce_all, an empty axis or as many as X's rank), else each of ``axis``
    modulo the rank."""
    rank = len(shape)
    every = attrs["reduce_all"] or not attrs["axis"] or len(attrs["axis"]) == rank or not rank
    return tuple(range(rank)) if every else tuple(d % rank for d in attrs["axis"])


def logsumexp_meta(attrs, ins, facts):
    """logsumexp's Out (the axes gone, or 1 with keepdim; 0-D where none is left; X's dtype): numpy's form
    ("numpy", fresh) over ``Meta.args[0]``'s axes."""
    shape = tuple(ins["X"].shape)
    axes = logsumexp_axes(shape, attrs)
    out = kept_shape(shape, axes) if attrs["keepdim"] else tuple(n for i, n in enumerate(shape) if i not in axes)
    return Meta({"Out": (out, np.dtype(ins["X"].dtype))}, "numpy", args=(axes,), fresh=True)


def logsumexp_grad_meta(attrs, ins, facts):
    """logsumexp_grad's X@GRAD (X's shape and dtype; fresh); ``Meta.args``: Out's shape against X's."""
    shape = tuple(ins["X"].shape)
    kept = kept_shape(shape, logsumexp_axes(shape, attrs))
    return Meta({"X@GRAD": (shape, np.dtype(ins["X"].dtype))}, "numpy", args=(kept,), fresh=True)


# -- the norms (ops/reduction_norm.py) --


def frobenius_norm_meta(attrs, ins, facts):
    """frobenius_norm's Out: sqrt(sum of X^2) over ``sorted_axes`` (``Meta.args[0]``; fresh), X cast to out_dtype
    first where it is given (>= 0); its shape as reduce_prod's."""
    shape, code = tuple(ins["X"].shape), attrs["out_dtype"]
    axes = sorted_axes(shape, attrs)
    out = kept_shape(shape, axes) if attrs["keep_dim"] else tuple(n for i, n in enumerate(shape) if i not in axes)
    dtype = np.dtype(ins["X"].dtype) if code < 0 else np.dtype(convert_dtype(code))
    return Meta({"Out": (out or scalar_shape(facts.zero_dim), dtype)}, "numpy", args=(axes,), fresh=True)


def frobenius_norm_grad_meta(attrs, ins, facts):
    """frobenius_norm_grad's X@GRAD (fresh); ``Meta.args``: Out's shape against X's (``dims_axes``, as it took them)."""
    shape = tuple(ins["X"].shape)
    return Meta(
        {"X@GRAD": (shape, np.dtype(ins["X"].dtype))},
        "numpy",
        args=(kept_shape(shape, dims_axes(shape, attrs)),),
        fresh=True,
    )


def _p_norm_form(porder):
    """p_norm's form of ``porder``: "count" (0: Paddle 2.x's count of nonzero X), "extreme" (+-inf: the largest
    or smallest |X|) or "power"."""
    return "count" if porder == 0 else "extreme" if np.isinf(porder) else "power"


def _p_norm_along(shape, attrs):
    """(axis, the shape X is viewed as, Out's shape against it): X flattened (axis 0) for ``asvector``."""
    if attrs.get("asvector"):
        return 0, (numel(shape),), (1,)
    axis = attrs["axis"] % max(len(shape), 1)
    return axis, shape, shape[:axis] + (1,) + shape[axis + 1 :]


def p_norm_meta(attrs, ins, facts):
    """p_norm's Out (X's dtype: the axis gone, or 1 with keepdim; ``asvector``, Paddle 2.x's norm of all of X:
    0-D, or every dim 1 with keepdim), by its porder's form (fresh); ``Meta.args``: the axis and X's view."""
    shape = tuple(ins["X"].shape)
    axis, work, _ = _p_norm_along(shape, attrs)
    if attrs.get("asvector"):
        out = (1,) * len(shape) if attrs["keepdim"] else ()
    else:
        out = kept_shape(shape, (axis,)) if attrs["keepdim"] else shape[:axis] + shape[axis + 1 :]
    outputs = {"Out": (out, np.dtype(ins["X"].dtype))}
    return Meta(outputs, _p_norm_form(attrs["porder"]), args=(axis, work), fresh=True)


def p_norm_grad_meta(attrs, ins, facts):
    """p_norm_grad's X@GRAD (X's shape and dtype) by the form of porder in X's dtype ("count": zeros, written
    into X@GRAD; the others fresh); ``Meta.args``: X's view and Out's shape against it."""
    shape, dtype = tuple(ins["X"].shape), np.dtype(ins["X"].dtype)
    _, work, kept = _p_norm_along(shape, attrs)
    form = _p_norm_form(dtype.type(attrs["porder"]))
    # (of a 0-D X along its axis, Out's [1] broadcast: X@GRAD [1], as the kernel always gave it)
    out = shape if attrs.get("asvector") or form == "count" else tuple(broadcast((shape, kept)))
    return Meta({"X@GRAD": (out, dtype)}, form, args=(work, kept), fresh=form != "count")


def l1_norm_meta(attrs, ins, facts):
    """l1_norm's Out: [1] of X's dtype ([] where the op is 0-D: a Paddle 2.x program's)."""
    return Meta({"Out": (scalar_shape(facts.zero_dim), np.dtype(ins["X"].dtype))}, "numpy")


def l1_norm_grad_meta(attrs, ins, facts):
    """l1_norm_grad's X@GRAD: sign(X) * Out@GRAD, X's shape and dtype (fresh)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), np.dtype(ins["X"].dtype))}, "numpy", fresh=True)
