"""The normalization family's layout rules, shared by shape inference and the kernels of both devices: the
channel axis, the views of X the kernels normalize over, when batch_norm uses its running statistics."""

import numpy as np

from ..base.dims import fmt_shape, known_numel
from ..base.errors import EnforceNotMet
from .structured import Meta


def bn_channel_axis(ndim, layout):
    """The channel axis of batch_norm's X: last for NHWC, else 1."""
    return ndim - 1 if layout == "NHWC" else 1


def layer_norm_split(shape, begin_norm_axis):
    """layer_norm's view of X as a matrix: (rows, columns), rows the product of the dims before
    ``begin_norm_axis``, each row normalized over the rest."""
    rows = 1
    for d in tuple(shape)[:begin_norm_axis]:
        rows *= d
    size = 1
    for d in shape:
        size *= d
    return rows, size // max(rows, 1)


def running_stats(attrs):
    """batch_norm normalizes by the running statistics: with use_global_stats, or is_test without
    trainable_statistics (Fluid's test mode; with it, a test batch is normalized by its own)."""
    return bool((attrs["is_test"] and not attrs.get("trainable_statistics", False)) or attrs["use_global_stats"])


def norm_layout(x_shape, groups=None):
    """(rows, n, C, inner): X as [rows, n] rows to normalize, and as [N, C, inner] for the affine."""
    n_batch, c = x_shape[0], x_shape[1]
    inner = 1
    for d in x_shape[2:]:
        inner *= d
    per_row = inner if groups is None else c // groups * inner
    return (n_batch * (c if groups is None else groups)), per_row, c, inner


def channel_view(x, attrs):
    """(pre, C, post): X seen as [pre, C, post] around its channel dim."""
    axis = 1 if attrs["data_layout"] == "NCHW" else len(x.shape) - 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1 :]))


def lrn_view(x, attrs):
    """(pre, C, post) around the channel dim: 1 in NCHW, 3 in NHWC."""
    axis = 3 if attrs["data_format"] == "NHWC" else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1 :]))


# -- layer_norm's structured kernels (shapes/structured.py; out-kernels: kernels/cpu/layer_norm.py) ------------
# X seen as [left, right] (layer_norm_split at begin_norm_axis), each row normalized by itself in the loops of
# _norm_loops.py. Y of X's shape and dtype, Mean and Variance [left] in X's dtype (as the shape rule says), and
# the gradient's X@GRAD, Bias@GRAD (always) and Scale@GRAD (where Scale is given), [right], in X's dtype.
# Variants: "rows": float32 or float64 X, the loops write the outputs' buffers; "cast": other dtypes (float16)
# computed in float32 scratch buffers, then cast to the outputs. ``Meta.args``: the [left, right] view.

_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _ln_view(attrs, x):
    return tuple(layer_norm_split(tuple(x.shape), attrs["begin_norm_axis"]))


def layer_norm_refusal(x, begin_norm_axis, params, runtime):
    """Why layer_norm cannot normalize X (shape ``x``) from ``begin_norm_axis`` with ``params`` (Scale, Bias:
    slot -> shape, the ones given), or None. The size of Scale and Bias is compared where the op runs
    (``runtime``; Fluid compares it then): the shape rule and, on its values' shapes, the meta rule."""
    b = begin_norm_axis
    if x is None or not 1 <= b < len(x):
        return f"begin_norm_axis={b} must be in [1, {len(x or ()) - 1}] for X {fmt_shape(x)}"
    right = known_numel(x[b:])
    for slot, s in params.items():
        if len(s) != 1 or (runtime and s[0] != right):
            return f"{slot} {fmt_shape(s)} must be [{right}], the size of X {fmt_shape(x)} from begin_norm_axis={b}"
    return None


def layer_norm_meta(attrs, ins, facts):
    """layer_norm's outputs and variant (above); refuses what its shape rule refuses where the op runs."""
    x = ins["X"]
    params = {slot: tuple(ins[slot].shape) for slot in ("Scale", "Bias") if ins.get(slot) is not None}
    refusal = layer_norm_refusal(tuple(x.shape), attrs["begin_norm_axis"], params, True)
    if refusal:
        raise EnforceNotMet(f"layer_norm: {refusal}")
    view, dtype = _ln_view(attrs, x), np.dtype(x.dtype)
    rows = (view[0],)
    outputs = {"Y": (tuple(x.shape), dtype), "Mean": (rows, dtype), "Variance": (rows, dtype)}
    if dtype in _LOOP_DTYPES:
        return Meta(outputs, "rows", "layer_norm", args=view)
    f32 = np.dtype(np.float32)
    scratch = {"y": (view, f32), "mean": (rows, f32), "var": (rows, f32)}
    return Meta(outputs, "cast", scratch=scratch, args=view)


def layer_norm_grad_meta(attrs, ins, facts):
    """layer_norm_grad's outputs and variant (above): the sums over rows in float64 scratch buffers."""
    x = ins["X"]
    view, dtype = _ln_view(attrs, x), np.dtype(x.dtype)
    cols = (view[1],)
    outputs = {"X@GRAD": (tuple(x.shape), dtype), "Bias@GRAD": (cols, dtype)}
    if "Scale" in ins and ins["Scale"] is not None:
        outputs["Scale@GRAD"] = (cols, dtype)
    f64 = np.dtype(np.float64)
    scratch = {"dscale": (cols, f64), "dbias": (cols, f64)}
    if dtype in _LOOP_DTYPES:
        return Meta(outputs, "rows", "layer_norm_grad", scratch=scratch, args=view)
    scratch["dx"] = (view, np.dtype(np.float32))
    return Meta(outputs, "cast", scratch=scratch, args=view)


# -- batch_norm's structured kernels (out-kernels: kernels/cpu/batch_norm.py) -------------------------------------
# Outputs: Y of X's shape and dtype, MeanOut and VarianceOut [C] of Mean's and Variance's dtypes, SavedMean and
# SavedVariance [C] in X's dtype; the gradient's X@GRAD of X's, Scale@GRAD and Bias@GRAD [C] of Scale's dtype.
# Variants (``args``: the axes the statistics reduce over, the shape a [C] value broadcasts by):
# - "running" (running_stats, float X): MeanOut and VarianceOut are Mean and Variance as they are, and SavedMean
#   is Mean where Mean is of X's dtype (``aliases``: the arrays the kernel before returned);
# - "loops" (training on float32/float64 NCHW or [N, C] values of one dtype, not empty: the numba loops of
#   _norm_loops.py, the batch's statistics in float64 scratch [3, C], the other outputs from them by a loop too;
#   "loops_mixed" where that loop cannot compute what numpy does: Mean or Variance of float16, a momentum that
#   is no Python number: numpy's update of the running statistics);
# - "numpy" (training on float32/float64 X otherwise: NHWC, parameters of another dtype, empty): numpy's
#   reductions, every output written through ``out=``;
# - "fresh" (the rest: float16 X in training, whose np.mean sums in float32 and rounds once, not through a
#   float16 buffer; X of no float dtype; a gradient whose Scale is of another dtype than X: its sums are of
#   X's dtype, then cast): the numpy form's own arrays (Meta.fresh).
# The gradient: "loops" (as above; Scale@GRAD and Bias@GRAD the loop's float64 sums cast, no scratch); "numpy" in
# training, "running" by the running statistics (every input of X's float dtype: the sums written into
# Scale@GRAD and Bias@GRAD, X@GRAD through ``out=``); "fresh" (the rest). A fresh variant's ``args`` say a third
# thing: whether it is by the running statistics.

_FLOATS = (np.dtype(np.float16), *_LOOP_DTYPES)


def _bn_loops(x, attrs, *others):
    """Training on float NCHW data (or [N, C]) of one float dtype, not empty: the numba loops."""
    n = 1
    for d in x.shape:
        n *= d
    return (
        attrs["data_layout"] != "NHWC"
        and len(x.shape) >= 2
        and n > 0
        and not running_stats(attrs)
        and (_same_float(x, *others))
    )


def _same_float(*values):
    dtype = np.dtype(values[0].dtype)
    return dtype in _LOOP_DTYPES and all(np.dtype(v.dtype) == dtype for v in values[1:])


def _bn_broadcast(ndim, attrs):
    """(the axes batch_norm reduces over, the shape its per-channel values broadcast by)."""
    axis = bn_channel_axis(ndim, attrs["data_layout"])
    return tuple(a for a in range(ndim) if a != axis), tuple(-1 if a == axis else 1 for a in range(ndim))


def batch_norm_meta(attrs, ins, facts):
    """batch_norm's outputs and variant (above)."""
    x, mean, var = ins["X"], ins["Mean"], ins["Variance"]
    dtype, c = np.dtype(x.dtype), (x.shape[bn_channel_axis(len(x.shape), attrs["data_layout"])],)
    outputs = {
        "Y": (tuple(x.shape), dtype),
        "MeanOut": (tuple(mean.shape), np.dtype(mean.dtype)),
        "VarianceOut": (tuple(var.shape), np.dtype(var.dtype)),
        "SavedMean": (c, dtype),
        "SavedVariance": (c, dtype),
    }
    axes, bshape = _bn_broadcast(len(x.shape), attrs)
    running = running_stats(attrs)
    if running:
        aliases = {"MeanOut": "Mean", "VarianceOut": "Variance"}
        if dtype in _FLOATS:
            if outputs["MeanOut"] == (c, dtype):
                aliases["SavedMean"] = "Mean"
            return Meta(outputs, "running", aliases=aliases, args=(axes, bshape))
        return Meta(outputs, "fresh", fresh=True, aliases=aliases, args=(axes, bshape, running))
    if _bn_loops(x, attrs, ins["Scale"], ins["Bias"]):
        scratch = {"stats": ((3, *c), np.dtype(np.float64))}  # (the batch's mean, variance and inv_std)
        stats_dtypes = {np.dtype(mean.dtype), np.dtype(var.dtype)}
        if type(attrs["momentum"]) in (int, float) and stats_dtypes <= set(_LOOP_DTYPES):
            return Meta(outputs, "loops", scratch=scratch)
        return Meta(outputs, "loops_mixed", scratch=scratch)
    if dtype in _LOOP_DTYPES:
        return Meta(outputs, "numpy", args=(axes, bshape))
    return Meta(outputs, "fresh", fresh=True, args=(axes, bshape, running))


def batch_norm_grad_meta(attrs, ins, facts, with_x=True):
    """batch_norm_grad's (``with_x``) or batch_norm_grad_param's outputs and variant (above)."""
    x, scale = ins["X"], ins["Scale"]
    c, sdt = tuple(scale.shape), np.dtype(scale.dtype)
    outputs = {"Scale@GRAD": (c, sdt), "Bias@GRAD": (c, sdt)}
    if with_x:
        outputs["X@GRAD"] = (tuple(x.shape), np.dtype(x.dtype))
    if _bn_loops(x, attrs, scale, ins["Y@GRAD"], ins["SavedMean"], ins["SavedVariance"]):
        return Meta(outputs, "loops")
    axes, bshape = _bn_broadcast(len(x.shape), attrs)
    running = running_stats(attrs)
    same = (np.dtype(v.dtype) for v in (ins["Y@GRAD"], ins["SavedMean"], ins["SavedVariance"], scale))
    if sdt in _FLOATS and all(d == np.dtype(x.dtype) for d in same):
        return Meta(outputs, "running" if running else "numpy", args=(axes, bshape))
    return Meta(outputs, "fresh", fresh=True, args=(axes, bshape, running))


def batch_norm_grad_param_meta(attrs, ins, facts):
    return batch_norm_grad_meta(attrs, ins, facts, with_x=False)


# -- affine_channel, lrn and norm: structured kernels (out-kernels: kernels/cpu/normalization.py) --------------
# Variants: "out" (numpy's ufuncs and reductions written through their out=, in the dtype the values share: a float
# one where the op's arithmetic needs it), "fresh" (the numpy form in the dtypes numpy gives, cast to the
# outputs' dtypes, as the kernels' astype did; norm's of float16 too: its sums written into a C-contiguous out=
# differ from numpy's own in the last bits for a Fortran-ordered X). ``Meta.args``: the [pre, C, post] view
# (affine_channel, lrn), the axis (norm).


def _float_alike(dtypes, kinds):
    dtypes = {np.dtype(d) for d in dtypes}
    return len(dtypes) == 1 and dtypes.pop().name in kinds


_FLOATS = ("float16", "float32", "float64")


def _norm_meta(outputs, dtypes, args, kinds=_FLOATS):
    out = _float_alike(dtypes, kinds)
    return Meta(outputs, "out" if out else "fresh", fresh=not out, args=args)


def affine_channel_meta(attrs, ins, facts):
    """affine_channel: Out = X * Scale + Bias per channel, X's shape and dtype."""
    x, scale, bias = ins["X"], ins["Scale"], ins["Bias"]
    outputs = {"Out": (tuple(x.shape), np.dtype(x.dtype))}
    return _norm_meta(outputs, (x.dtype, scale.dtype, bias.dtype), (channel_view(x, attrs),))


def affine_channel_grad_meta(attrs, ins, facts):
    """affine_channel_grad: X@GRAD (X's dtype), Scale@GRAD and Bias@GRAD [C] (Scale's dtype)."""
    x, scale, d = ins["X"], ins["Scale"], ins["Out@GRAD"]
    view = channel_view(x, attrs)
    outputs = {
        "X@GRAD": (tuple(x.shape), np.dtype(x.dtype)),
        "Scale@GRAD": ((view[1],), np.dtype(scale.dtype)),
        "Bias@GRAD": ((view[1],), np.dtype(scale.dtype)),
    }
    return _norm_meta(outputs, (x.dtype, scale.dtype, d.dtype), (view,))


def lrn_meta(attrs, ins, facts):
    """lrn: Out and MidOut, X's shape and dtype."""
    x = ins["X"]
    spec = (tuple(x.shape), np.dtype(x.dtype))
    return _norm_meta({"Out": spec, "MidOut": spec}, (x.dtype,), (lrn_view(x, attrs),))


def lrn_grad_meta(attrs, ins, facts):
    """lrn_grad: X@GRAD, X's shape and dtype."""
    x = ins["X"]
    dtypes = (x.dtype, ins["Out"].dtype, ins["MidOut"].dtype, ins["Out@GRAD"].dtype)
    return _norm_meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, dtypes, (lrn_view(x, attrs),))


def norm_meta(attrs, ins, facts):
    """norm: Out = X / Norm, Norm = sqrt(sum(X^2) + epsilon) along axis (kept, a dim of 1), X's dtype."""
    x = ins["X"]
    axis = attrs["axis"] % len(x.shape)
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape))
    outputs = {"Out": (tuple(x.shape), np.dtype(x.dtype)), "Norm": (shape, np.dtype(x.dtype))}
    return _norm_meta(outputs, (x.dtype,), (axis,), _FLOATS[1:])


def norm_grad_meta(attrs, ins, facts):
    """norm_grad: X@GRAD = dOut / Norm - X * sum(dOut * X) / Norm^3, X's shape and dtype."""
    x = ins["X"]
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}
    dtypes = (x.dtype, ins["Norm"].dtype, ins["Out@GRAD"].dtype)
    return _norm_meta(outputs, dtypes, (attrs["axis"] % len(x.shape),), _FLOATS[1:])


# -- instance_norm, group_norm: structured kernels (out-kernels: kernels/cpu/normalization_groups.py) ----------
# X as [rows, n] rows to normalize (norm_layout), scaled and shifted per channel. "out": float32 or float64 values
# of one dtype, every step written through out= into the buffers handed; "fresh": the numpy form (float16, mixed
# dtypes). ``Meta.args``: the layout (rows, n, C, inner).


def _groups_variant(outputs, ins, layout):
    dtypes = [ins["X"].dtype] + [ins[s].dtype for s in ("Scale", "Bias") if ins.get(s) is not None]
    return _norm_meta(outputs, dtypes, (layout,), _FLOATS[1:])


def instance_norm_meta(attrs, ins, facts):
    """instance_norm: Y (X's shape and dtype), SavedMean and SavedVariance (1 / sqrt(var + epsilon)) [N * C]."""
    x = ins["X"]
    layout, dt = norm_layout(x.shape), np.dtype(x.dtype)
    stats = ((layout[0],), dt)
    meta = _groups_variant({"Y": (tuple(x.shape), dt), "SavedMean": stats, "SavedVariance": stats}, ins, layout)
    return meta if meta.fresh else meta._replace(scratch={"@var": stats})  # (the rows' var)


def group_norm_meta(attrs, ins, facts):
    """group_norm: Y (X's shape and dtype), Mean and Variance [N, groups]."""
    x, g = ins["X"], attrs["groups"]
    layout, dt = norm_layout(x.shape, g), np.dtype(x.dtype)
    stats = ((x.shape[0], g), dt)
    return _groups_variant({"Y": (tuple(x.shape), dt), "Mean": stats, "Variance": stats}, ins, layout)


def _norm_grads_meta(ins, layout):
    x = ins["X"]
    dt = np.dtype(x.dtype)
    outputs = {"Scale@GRAD": ((layout[2],), dt), "Bias@GRAD": ((layout[2],), dt), "X@GRAD": (tuple(x.shape), dt)}
    dtypes = [v.dtype for v in ins.values() if v is not None]  # (X, Y@GRAD, Scale, the statistics)
    return _norm_meta(outputs, dtypes, (layout,), _FLOATS[1:])


def instance_norm_grad_meta(attrs, ins, facts):
    """instance_norm_grad: X@GRAD (X's shape and dtype), Scale@GRAD and Bias@GRAD [C] (X's dtype)."""
    return _norm_grads_meta(ins, norm_layout(ins["X"].shape))


def group_norm_grad_meta(attrs, ins, facts):
    """group_norm_grad: as instance_norm_grad's, over groups of channels."""
    return _norm_grads_meta(ins, norm_layout(ins["X"].shape, attrs["groups"]))
