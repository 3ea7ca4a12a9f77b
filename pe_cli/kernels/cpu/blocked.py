"""Kernels on blocked values: an NCHW image held in oneDNN's layout nChw16c, an array
[N, C/16, H, W, 16] whose innermost axis is 16 channels at one position.

oneDNN's convolutions compute in that layout; on NCHW arrays each call converts its inputs to it
and its outputs back (reorders: 14.4 of a 85 ms ResNet step, docs/PERFORMANCE.md). Where only
the ops of this module read and write a value (a ResNet's convolutions, batch norms, residual adds,
gradient sums and global average pooling), the ``onednn_blocked_layout`` pass
(pe_cli/compiler/passes/blocked_layout.py) keeps it, and its gradient, blocked: the op's executor
step runs the kernel of this
module named like its own (``define.OpDef.kernel(device, blocked=True)``) and passes
``ctx.blocked``, the set of the op's slots that hold blocked values. Those slots are always
given and made blocked; the others are NCHW.

Where oneDNN does not take a call after all (it rejects a geometry, or the data is not float32),
the kernel converts the blocked values to NCHW, runs the op's own kernel and converts back: the
same numbers as that kernel, more slowly.
"""

import numpy as np

from . import convolution, elementwise, fused, normalization, pooling
from .runtime import onednn
from .runtime.loops import is_float, lazy, parallel_parts, twin
from ...shapes.conv_plans import ConvGeometry
from ..context import call
from .runtime.onednn import DIFF_DST, DIFF_SRC, DST, LANES, SRC, blocked_shape, plain_shape

_loops = lazy("_blocked_loops")


def to_blocked(value):
    """An NCHW array as a blocked one (a copy)."""
    n, c, h, w = value.shape
    return np.ascontiguousarray(value.reshape(n, c // LANES, LANES, h, w).transpose(0, 1, 3, 4, 2))


def to_plain(value):
    """A blocked array as an NCHW one (a copy)."""
    n, cb, h, w, lanes = value.shape
    return np.ascontiguousarray(value.transpose(0, 1, 4, 2, 3)).reshape(n, cb * lanes, h, w)


def _through_plain(kernel, ins, attrs, ctx):
    """``kernel`` (an NCHW kernel) on the blocked slots converted to NCHW, its blocked outputs back."""
    slots = ctx.blocked

    def convert(values, slot, to):
        if slot not in slots or values is None:
            return values
        return [to(v) for v in values] if isinstance(values, list) else to(values)

    outs = call(kernel, {k: convert(v, k, to_plain) for k, v in ins.items()}, attrs, ctx)
    return {k: convert(v, k, to_blocked) for k, v in outs.items()}


# -- conv2d (oneDNN) --------------------------------------------------------------------------------

_ARGS = ((SRC, "Input"), (DST, "Output"), (DIFF_DST, "Output@GRAD"), (DIFF_SRC, "Input@GRAD"))


def _conv_call(ins, attrs, ctx, narrow=False):
    """(oneDNN's arguments held blocked, the geometry), and whether oneDNN takes the call. ``narrow``:
    a call that gives no input gradient takes an input of any width when its output side is blocked:
    on a first layer's 3 channels, oneDNN writing blocked values took 0.37 ms where pe's own kernel
    and the conversion took 1.34, forward and filter gradient alike ([64, 3, 32x32] -> 16 channels,
    2 threads, Xeon VM, 2026-11-25)."""
    x, slots = ins["Input"], ctx.blocked
    blocked = frozenset(arg for arg, slot in _ARGS if slot in slots)
    geo = ConvGeometry(plain_shape(x, SRC in blocked), ins["Filter"].shape, attrs)
    wide = 1 if narrow and blocked & {DST, DIFF_DST} else None
    return (
        blocked,
        geo,
        onednn.applies(x, ins["Filter"], *(ins[k] for k in ("Output@GRAD",) if k in ins), min_channels=wide),
    )


def conv2d(ins, attrs, ctx):
    blocked, geo, applies = _conv_call(ins, attrs, ctx, narrow=True)
    if applies and (out := onednn.conv2d(ins["Input"], ins["Filter"], geo, blocked)) is not None:
        return {"Output": out}
    return _through_plain(convolution.conv2d, ins, attrs, ctx)


def conv2d_grad(ins, attrs, ctx):
    wanted = ctx.wanted(("Input@GRAD", "Filter@GRAD"))
    if "Input@GRAD" not in wanted:  # (the one gradient it writes: its own kernel, its own blocked sides)
        return conv2d_grad_filter(ins, attrs, ctx)
    if "Filter@GRAD" not in wanted:
        return conv2d_grad_input(ins, attrs, ctx)
    blocked, geo, applies = _conv_call(ins, attrs, ctx)
    if applies and (both := onednn.grads(ins["Input"], ins["Filter"], ins["Output@GRAD"], geo, blocked)) is not None:
        return {"Input@GRAD": both[0], "Filter@GRAD": both[1]}
    return _through_plain(convolution.conv2d_grad, ins, attrs, ctx)


def conv2d_grad_input(ins, attrs, ctx):
    blocked, geo, applies = _conv_call(ins, attrs, ctx)
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    if applies and (dx := onednn.grad_input(dout, w, geo, plain_shape(x, SRC in blocked), blocked)) is not None:
        return {"Input@GRAD": dx}
    return _through_plain(convolution.conv2d_grad_input, ins, attrs, ctx)


def conv2d_grad_filter(ins, attrs, ctx):
    blocked, geo, applies = _conv_call(ins, attrs, ctx, narrow=True)
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    if applies and (dw := onednn.grad_filter(x, dout, geo, w.shape, blocked)) is not None:
        return {"Filter@GRAD": dw}
    return _through_plain(convolution.conv2d_grad_filter, ins, attrs, ctx)


# -- batch norm (with relu: fused_batch_norm_act), in training --------------------------------------


def _loops_apply(ins, attrs, *slots):
    """_blocked_loops.py runs it: training, float arrays of one dtype, no activation or relu."""
    return (
        attrs.get("act_type", "relu") == "relu"
        and not normalization.running_stats(attrs)
        and is_float(*(ins[k] for k in slots))
    )


def _rows(value):
    """A blocked array as [N, C/16, H*W, 16] (a view)."""
    n, cb, h, w, lanes = value.shape
    return value.reshape(n, cb, h * w, lanes)


def _bn(ins, attrs, ctx, relu, plain):
    x = ins["X"]
    if not _loops_apply(ins, attrs, "X", "Scale", "Bias"):
        return _through_plain(plain, ins, attrs, ctx)
    c = x.shape[1] * x.shape[4]
    y = np.empty(x.shape, x.dtype)
    m, v, inv_std = np.empty(c), np.empty(c), np.empty(c)
    args = (
        _rows(np.ascontiguousarray(x)),
        ins["Scale"],
        ins["Bias"],
        float(attrs["epsilon"]),
        _rows(y),
        m,
        v,
        inv_std,
        relu,
    )
    twin(_loops().bn_forward, _loops().bn_forward_parallel, parallel_parts(x.size) > 1, *args)(*args)
    return normalization.bn_training_outputs(ins, attrs, y, m, v, inv_std)


def _bn_grad(ins, attrs, ctx, relu, plain):
    x, scale = ins["X"], ins["Scale"]
    out = "Y" if relu else "Y@GRAD"  # what relu's mask reads (nothing without relu)
    if not _loops_apply(ins, attrs, "X", "Scale", out, "Y@GRAD", "SavedMean", "SavedVariance"):
        return _through_plain(plain, ins, attrs, ctx)
    c = x.shape[1] * x.shape[4]
    dx, dscale, dbias = np.empty(x.shape, x.dtype), np.empty(c), np.empty(c)
    args = tuple(_rows(np.ascontiguousarray(ins[k])) for k in ("X", "Y@GRAD", out)) + (
        scale,
        ins["SavedMean"].astype(np.float64),
        ins["SavedVariance"].astype(np.float64),
        _rows(dx),
        dscale,
        dbias,
        relu,
    )
    twin(_loops().bn_grad, _loops().bn_grad_parallel, parallel_parts(x.size) > 1, *args)(*args)
    return {"X@GRAD": dx, "Scale@GRAD": dscale.astype(scale.dtype), "Bias@GRAD": dbias.astype(scale.dtype)}


def batch_norm(ins, attrs, ctx):
    return _bn(ins, attrs, ctx, False, normalization.batch_norm)


def batch_norm_grad(ins, attrs, ctx):
    return _bn_grad(ins, attrs, ctx, False, normalization.batch_norm_grad)


def fused_batch_norm_act(ins, attrs, ctx):
    return _bn(ins, attrs, ctx, True, fused.fused_batch_norm_act)


def fused_batch_norm_act_grad(ins, attrs, ctx):
    return _bn_grad(ins, attrs, ctx, True, fused.fused_batch_norm_act_grad)


# -- global average pooling ------------------------------------------------------------------------


def pool2d(ins, attrs, ctx):
    x = ins["X"]
    if "X" not in ctx.blocked or not is_float(x):
        return _through_plain(pooling.pool2d, ins, attrs, ctx)
    n, cb, h, w, lanes = x.shape
    out = np.empty((n, cb, lanes), x.dtype)
    _loops().global_avg_pool(_rows(np.ascontiguousarray(x)), out)
    return {"Out": out.reshape(n, cb * lanes, 1, 1)}


def pool2d_grad(ins, attrs, ctx):
    """X@GRAD: each channel's Out@GRAD over the count of X's positions, at every position (the NCHW
    loops' bits: they add it to zero)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    if "X@GRAD" not in ctx.blocked or not is_float(dout):
        return _through_plain(pooling.pool2d_grad, ins, attrs, ctx)
    n, cb, h, w, lanes = x.shape
    g = dout.reshape(n, cb, 1, 1, lanes) / dout.dtype.type(h * w)
    return {"X@GRAD": np.ascontiguousarray(np.broadcast_to(g, x.shape))}


# -- elementwise on values of one shape (define.one_shape_blocked) ------------------------------------


def _one_shape(kernel):
    """``kernel`` as it is: on arrays of one shape it computes element by element, in any layout (the
    NCHW kernel through NCHW copies where the shapes differ at run time)."""

    def run(ins, attrs, ctx):
        values = [v for v in ins.values() for v in (v if isinstance(v, list) else [v]) if v is not None]
        if all(isinstance(v, np.ndarray) and v.shape == values[0].shape for v in values):
            return call(kernel, ins, attrs, ctx)
        return _through_plain(kernel, ins, attrs, ctx)

    run.__name__ = kernel.__name__
    return run


sum = _one_shape(elementwise.sum)
fused_elemwise_activation = _one_shape(fused.fused_elemwise_activation)
fused_elemwise_activation_grad = _one_shape(fused.fused_elemwise_activation_grad)


__all__ = [
    "batch_norm",
    "batch_norm_grad",
    "blocked_shape",
    "conv2d",
    "conv2d_grad",
    "conv2d_grad_filter",
    "conv2d_grad_input",
    "fused_batch_norm_act",
    "fused_batch_norm_act_grad",
    "fused_elemwise_activation",
    "fused_elemwise_activation_grad",
    "pool2d",
    "pool2d_grad",
    "sum",
    "to_blocked",
    "to_plain",
]
