"""The CPU out-kernels of batch_norm, batch_norm_grad and batch_norm_grad_param (structured kernels,
pe_cli/shapes/structured.py): ``FORWARD``, ``GRAD`` and ``GRAD_PARAM``, ``out(ins, outs, attrs, meta)``, compute
the variant their meta rule chose (pe_cli/shapes/normalization.py) into the buffers they are handed:

- "running" (is_test, use_global_stats): Y by the running statistics; MeanOut and VarianceOut are Mean and
  Variance as they are (the Meta's aliases);
- "loops": training on float NCHW values, the numba loops of _norm_loops.py (per channel, blocks of channels
  over threads; the statistics in float64 scratch);
- "numpy": the rest (NHWC, float16, mixed dtypes).

No planned-step launches: a planned step runs them as Python launches."""

import numpy as np

from ...shapes.normalization import bn_channel_axis, running_stats
from .launches import by_variant
from .runtime.loops import lazy, parallel_parts, twin

_norm_loops = lazy("_norm_loops")


def _no_launches(op, table, meta):
    return None


def _put(outs, slot, value):
    np.copyto(outs[slot], value, casting="unsafe")


def bn_axes(x, attrs):
    """(the axes batch_norm reduces over, the shape its per-channel values broadcast by)."""
    axis = bn_channel_axis(x.ndim, attrs["data_layout"])
    bshape = [1] * x.ndim
    bshape[axis] = -1
    return tuple(a for a in range(x.ndim) if a != axis), bshape


def channel_blocks(x):
    """Batch norm's blocks of channels, one a thread (more than one takes the parallel twin):
    several channels, enough data, several threads."""
    return min(x.shape[1], parallel_parts(x.size))


def as_ncs(a):
    return np.ascontiguousarray(a).reshape(a.shape[0], a.shape[1], -1)


def _affine(ins, outs, attrs, m, v):
    """Y, SavedMean and SavedVariance from the statistics ``m`` and ``v`` (X's dtype)."""
    x, scale, bias = ins["X"], ins["Scale"], ins["Bias"]
    axes, bshape = bn_axes(x, attrs)
    dt = x.dtype
    inv_std = (1.0 / np.sqrt(v + attrs["epsilon"])).astype(dt, copy=False)
    a = scale.astype(dt, copy=False) * inv_std
    y = x * a.reshape(bshape) + (bias.astype(dt, copy=False) - m * a).reshape(bshape)
    _put(outs, "Y", y.astype(dt, copy=False))
    _put(outs, "SavedMean", m.astype(dt, copy=False))
    _put(outs, "SavedVariance", inv_std)


def _moving(ins, outs, attrs, m, v):
    """MeanOut and VarianceOut: the running statistics moved toward the batch's by momentum."""
    mom, mean, var = attrs["momentum"], ins["Mean"], ins["Variance"]
    _put(outs, "MeanOut", (mean * mom + m * (1.0 - mom)).astype(mean.dtype, copy=False))
    _put(outs, "VarianceOut", (var * mom + v * (1.0 - mom)).astype(var.dtype, copy=False))


def _running(ins, outs, attrs, meta):
    dt = ins["X"].dtype
    _affine(ins, outs, attrs, ins["Mean"].astype(dt, copy=False), ins["Variance"].astype(dt, copy=False))


def _numpy(ins, outs, attrs, meta):
    x = ins["X"]
    axes, _ = bn_axes(x, attrs)
    m = x.mean(axis=axes)
    v = x.var(axis=axes)  # biased, as Fluid uses for both Y and the moving variance
    _moving(ins, outs, attrs, m, v)
    _affine(ins, outs, attrs, m, v)


def _loops(ins, outs, attrs, meta):
    x, y, dt = ins["X"], outs["Y"], ins["X"].dtype
    c = x.shape[1]
    m, v, inv_std = outs["m"], outs["v"], outs["inv_std"]
    parts = channel_blocks(x)
    args = (as_ncs(x), ins["Scale"], ins["Bias"], float(attrs["epsilon"]), y.reshape(x.shape[0], c, -1))
    args += (m, v, inv_std, False, parts)
    loops = _norm_loops()
    twin(loops.bn_forward, loops.bn_forward_parallel, parts > 1, *args)(*args)
    _moving(ins, outs, attrs, m, v)
    _put(outs, "SavedMean", m.astype(dt))
    _put(outs, "SavedVariance", inv_std.astype(dt))


def _grad_loops(ins, outs, attrs, meta):
    x, scale, dy = ins["X"], ins["Scale"], as_ncs(ins["Y@GRAD"])
    with_x = "X@GRAD" in meta.outputs
    dx = outs["X@GRAD"] if with_x else outs["dx"]
    dscale, dbias = outs["dscale"], outs["dbias"]
    parts = channel_blocks(x)
    args = (as_ncs(x), dy, scale, ins["SavedMean"], ins["SavedVariance"], dx.reshape(dx.shape[0], dx.shape[1], -1))
    args += (dscale, dbias, with_x, dy, False, parts)
    loops = _norm_loops()
    twin(loops.bn_grad, loops.bn_grad_parallel, parts > 1, *args)(*args)
    _put(outs, "Scale@GRAD", dscale.astype(scale.dtype))
    _put(outs, "Bias@GRAD", dbias.astype(scale.dtype))


def _grad_numpy(ins, outs, attrs, meta):
    x, scale, sm, inv_std, dy = ins["X"], ins["Scale"], ins["SavedMean"], ins["SavedVariance"], ins["Y@GRAD"]
    axes, bshape = bn_axes(x, attrs)
    xhat = (x - sm.reshape(bshape)) * inv_std.reshape(bshape)
    dbias = dy.sum(axis=axes)
    dscale = (dy * xhat).sum(axis=axes)
    _put(outs, "Scale@GRAD", dscale.astype(scale.dtype, copy=False))
    _put(outs, "Bias@GRAD", dbias.astype(scale.dtype, copy=False))
    if "X@GRAD" not in meta.outputs:
        return
    k = (scale * inv_std).astype(x.dtype, copy=False)
    if running_stats(attrs):
        dx = dy * k.reshape(bshape)
    else:
        count = x.size // max(sm.size, 1)
        dx = (k / count).reshape(bshape) * (count * dy - dbias.reshape(bshape) - xhat * dscale.reshape(bshape))
    _put(outs, "X@GRAD", dx.astype(x.dtype, copy=False))


FORWARD = by_variant("batch_norm_out", _no_launches, running=_running, loops=_loops, numpy=_numpy)
GRAD = by_variant("batch_norm_grad_out", _no_launches, loops=_grad_loops, numpy=_grad_numpy)
