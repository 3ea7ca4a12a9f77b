"""CPU kernels of the convolution ops (ops/convolution.py): conv2d (its out-kernels: conv2d_transpose's,
conv2d_transpose.py, are these with the roles swapped) and deformable_conv (numpy, below).

float32 conv2d and its gradients run on oneDNN's direct convolutions where the ``onednn`` extra is
installed (runtime/onednn.py; ``PE_ONEDNN=0`` turns it off); elsewhere, and for float64, on pe's own paths:

float32/float64 (the types the numba loops are compiled for, _conv_loops.py):
conv2d is im2col + GEMM per sample, in one numba loop over the samples: each sample's columns
[C*kh*kw, Ho*Wo] are built in a per-thread buffer (small enough to stay in L2) and multiplied by
the filter with numpy's BLAS called from the loop (runtime/cblas.py), straight into the NCHW output. The
filter gradient accumulates Output@GRAD x columns^T per thread, the input gradient is
filter^T x Output@GRAD then col2im, per sample. When the device has several cores the samples are
spread over numba's threads (the loops' ``*_parallel`` twins; pe_cli/kernels/cpu/runtime/threads.py). A 1x1 stride-1
unpadded filter uses the input itself as its columns; a 3x3 stride-1 filter between 8 or more
channels, with 64 or more 2x2 output tiles a sample, takes Winograd's F(2x2, 3x3) instead (_winograd.py:
2.25x fewer multiply-adds, no im2col); any other stride-1 filter without dilation takes the wide
columns (_wide_loops.py: each row of columns one run of the padded plane, the GEMM over Ho x
(Wo + kw - 1) positions, where im2col copies Wo elements at a time). Where numpy's BLAS cannot be called from numba, the columns
of the whole batch are built by a numba loop and multiplied by one batched ``numpy.matmul``.

Other dtypes take the vectorised numpy path: im2col as one strided copy of the padded input into
[groups, C/groups*kh*kw, N*Ho*Wo] and one GEMM, col2im as kh*kw strided adds. Their helpers are in
_conv.py; the geometry, shared with the CUDA twins, in shapes/conv_plans.py.

Which of these paths a convolution takes is its meta rule's (shapes/conv2d.py: conv2d's and its gradients'
structured kernels), once per shape signature, and conv2d and both its gradients follow that one decision into
the buffers they are handed (each direction's code for each path is in conv2d_paths.py).
"""

import math

import numpy as np

from . import _conv, activation, convolution_onednn
from .launches import Launch, Shape, by_variant, flat, floats, one, twin_launch
from .runtime import cblas
from .runtime.loops import lazy
from .runtime import onednn as _onednn
from . import conv2d_paths as paths
from ..structured import adapter, fresh_outputs
from ...shapes import conv2d as rules
from ...shapes import convolution_irregular as irregular
from ...shapes.conv2d import MAPPED, NUMPY, ONEDNN, PER_SAMPLE, WINOGRAD, ZEROS
from ...shapes.conv_pool import conv_out_size

_conv_loops = lazy("_conv_loops")


# -- conv2d: out-kernels of the ConvPlan its meta rule decides (shapes/conv2d.py) ----------------------


def _relu(x):
    return activation.relu({"X": x}, {})["Out"]


def _onednn_or(path, fallback):
    """``path``, or where it is oneDNN and the host has none, ``fallback``."""
    return fallback if path == ONEDNN and _onednn.library() is None else path


def _forward(x, w, conv, out):
    """The regular convolution's Output into ``out``: oneDNN's, or where it has no primitive, the path after."""
    _onednn_else(conv, lambda: _onednn.conv2d(x, w, conv.geo, out=out), paths.FORWARD, x.dtype, (x, w, conv.geo, out))


def _grad_filter(x, dout, conv, out):
    onednn = lambda: _onednn.grad_filter(x, dout, conv.geo, out.shape, out=out)  # noqa: E731
    _onednn_else(conv, onednn, paths.GRAD_FILTER, x.dtype, (x, dout, conv.geo, out))


def _grad_input(w, dout, conv, out):
    onednn = lambda: _onednn.grad_input(dout, w, conv.geo, out.shape, out=out)  # noqa: E731
    _onednn_else(conv, onednn, paths.GRAD_INPUT, out.dtype, (w, dout, conv.geo, out))


def _onednn_else(conv, onednn, table, dtype, args):
    """``onednn()`` where the Meta's path is oneDNN and it has a primitive (not None), else ``table``'s function of
    the path after (conv.fallback) on this host, on ``args``."""
    path = _onednn_or(conv.path, conv.fallback)
    if path == ONEDNN:
        if onednn() is not None:
            return
        path = conv.fallback
    table[paths.host_path(path, dtype)](*args)


def _conv2d_path(ins, outs, attrs, meta):
    _forward(ins["Input"], ins["Filter"], meta.args, outs["Output"])


def _conv2d_other(ins, outs, attrs, meta):
    forward_into(meta.args, meta.variant, ins["Input"], ins["Filter"], outs["Output"])


def _filter_grad_mapped(x, dout, conv, out):
    """Filter@GRAD of a mapped convolution: relu's Input, the regular one's gradient folded back."""
    if conv.relu:
        x = _relu(x)
    reg = conv.regular
    if reg is None:
        _grad_filter(x, dout, conv, out)
        return
    folded = np.empty(out.shape[:2] + (conv.geo.kh, conv.geo.kw), out.dtype)
    _grad_filter(reg.input(x), dout, conv, folded)
    np.copyto(out, reg.filter_grad(folded))


def _input_grad_mapped(x, w, dout, conv, out):
    """Input@GRAD of a mapped convolution: the regular one's, 0 where Input was cropped; through relu's
    gradient (on relu's Input, recomputed) where the op convolves relu(Input)."""
    reg = conv.regular
    if reg is None:
        _grad_input(w, dout, conv, out)
    else:
        window = (slice(None), slice(None)) + tuple(slice(lo, hi) for lo, hi in reg.windows)
        inner = np.empty(out.shape[:2] + tuple(hi - lo for lo, hi in reg.windows), out.dtype)
        _grad_input(reg.filter(w), dout, conv, inner)
        out.fill(0)
        out[window] = inner
    if conv.relu:
        y = _relu(x)
        np.copyto(out, activation.relu_grad({"Out": y, "Out@GRAD": out}, {})["X@GRAD"])


def _grads(ins, outs, attrs, meta):
    """The gradients the op writes (Input@GRAD, Filter@GRAD, or both)."""
    grads_into(meta.args, meta.variant, ins, outs.get("Input@GRAD"), outs.get("Filter@GRAD"))


def grads_into(conv, variant, ins, dx, dw):
    """The gradients of the convolution of ConvPlan ``conv`` (of that variant) into ``dx`` and ``dw`` (None: not
    written): oneDNN's two directions at once first, on the op's own geometry, where both are written and Input
    goes through no relu."""
    x, w, dout = ins["Input"], ins["Filter"], ins["Output@GRAD"]
    if dx is not None and dw is not None and conv.path == ONEDNN and not conv.relu and _onednn.library() is not None:
        if _onednn.grads(x, w, dout, conv.op_geo, outs=(dx, dw)) is not None:
            return
    if variant == ZEROS:
        for out in (dx, dw):
            if out is not None:
                out.fill(0)
    elif variant == MAPPED:
        if dx is not None:
            _input_grad_mapped(x, w, dout, conv, dx)
        if dw is not None:
            _filter_grad_mapped(x, dout, conv, dw)
    else:
        if dx is not None:
            _grad_input(w, dout, conv, dx)
        if dw is not None:
            _grad_filter(x, dout, conv, dw)


def forward_into(conv, variant, x, w, out):
    """Output of the convolution of ConvPlan ``conv`` (of that variant) into ``out``."""
    if variant == ZEROS:
        out.fill(0)
        return
    if conv.relu:
        x = _relu(x)
    if conv.regular is not None:
        x, w = conv.regular.input(x), conv.regular.filter(w)
    _forward(x, w, conv, out)


def _forward_launches(op, table, meta):
    """A planned step's launch of the "per_sample" variant on this host (conv2d_paths.host_path: numpy's BLAS
    callable from the loops): _conv.per_sample's loop, the wide columns' or im2col's (its parallel twin where
    the device has threads for the samples: the same bits), its per-thread scratch kept by the plan. None for
    the other variants but "onednn" (convolution_onednn's; the op then runs as a Python launch, its out-kernel)."""
    if meta.variant == ONEDNN:
        return convolution_onednn.forward_launches(op, table, meta)
    x, w, out = one(op, "Input"), one(op, "Filter"), one(op, "Output", "outputs")
    if not _per_sample(meta, table, x, w, out):
        return None
    return [_per_sample_launch("forward", meta.args.geo, table, x, w, out, [out], table[w][0][0], table[x][0])]


def _per_sample(meta, table, *names):
    """True where the Meta chose "per_sample" and this host runs it (conv2d_paths.host_path: numpy's BLAS callable
    from the loops) on float values of one dtype, all 4-D."""
    if meta.variant != PER_SAMPLE or not floats(table, *names) or any(len(table[n][0]) != 4 for n in names):
        return False
    return paths.host_path(meta.args.path, table[names[0]][1]) == PER_SAMPLE


def _per_sample_launch(name, geo, table, a, b, out, writes, m, samples):
    """The launch of _conv.per_sample(name, gemm, a, b, out, geo, samples, m): its loop (the parallel twin where the
    device has threads for the samples: the same bits), its per-thread scratch kept by the plan (a gradient's
    wide Output@GRAD keeps its zeros: only the valid columns are written there)."""
    dtype, par = table[a][1], _conv.parallel(samples[0])
    serial, par_loop, _, geometry, scratch = _conv.per_sample_loops(name, par, geo, Shape(samples, dtype), m)
    args = [("const", cblas.gemm(dtype)), ("var", a, None), ("var", b, None), *(("const", g) for g in geometry)]
    out_arg = ("var", out, None) if type(out) is str else ("array", out)
    return twin_launch(serial, par_loop, par > 1, [*args, out_arg, ("array", scratch)], writes=writes)


def _grad_launches(op, table, meta):
    """A planned step's launches of the gradients' "per_sample" variant (grads_into: Input@GRAD, then
    Filter@GRAD: its runs zeroed, the loop, the runs summed in order, conv2d_paths._grad_filter_per_sample's
    loops); "onednn": convolution_onednn's; None for the other variants (a Python launch)."""
    if meta.variant == ONEDNN:
        return convolution_onednn.grad_launches(op, table, meta)
    x, w, dout = one(op, "Input"), one(op, "Filter"), one(op, "Output@GRAD")
    dx, dw = (one(op, s, "outputs") if op.outputs.get(s) else None for s in ("Input@GRAD", "Filter@GRAD"))
    if (dx, dw) == (None, None) or not _per_sample(meta, table, x, w, dout, *(n for n in (dx, dw) if n)):
        return None
    (m, *_), geo, launches = table[w][0], meta.args.geo, []
    if dx is not None:
        launches.append(_per_sample_launch("grad_input", geo, table, dout, w, dx, [dx], m, table[dx][0]))
    if dw is not None:
        (n, *_), dtype = table[x]
        parts = paths.filter_runs(n, m, math.prod(table[dw][0][1:]), dtype)
        loops = _conv_loops()
        launches.append(Launch(loops.zero_runs, [("array", parts)]))
        launches.append(_per_sample_launch("grad_filter", geo, table, x, dout, parts, [], m, table[x][0]))
        launches.append(Launch(loops.sum_runs, [("array", parts), flat(table, dw)], writes=[dw]))
    return launches


_PATHS = (ONEDNN, WINOGRAD, PER_SAMPLE, NUMPY)
conv2d_out = by_variant(
    "conv2d_out", _forward_launches, zeros=_conv2d_other, mapped=_conv2d_other, **dict.fromkeys(_PATHS, _conv2d_path)
)
# (one function for every variant of the gradients: which of them the op writes is in its outputs)
conv2d_grad_out = by_variant("conv2d_grad_out", _grad_launches, **dict.fromkeys(_PATHS + (ZEROS, MAPPED), _grads))

# the kernels by name, for the callers that run them so (the blocked kernels' fallbacks): the adapters the ops' definitions make (kernels/structured.py)
conv2d = adapter(rules.conv2d_meta, conv2d_out, "conv2d")
conv2d_grad = adapter(rules.conv2d_grad_meta, conv2d_grad_out, "conv2d_grad")
conv2d_grad_input = adapter(rules.conv2d_grad_input_meta, conv2d_grad_out, "conv2d_grad_input")
conv2d_grad_filter = adapter(rules.conv2d_grad_filter_meta, conv2d_grad_out, "conv2d_grad_filter")


# -- deformable_conv: a deformable im2col (bilinear samples at the offset taps, numpy over all taps at
# once), then the grouped product with the filter; the gradient runs the same steps back (the input's
# part one bincount): the "numpy" variant of its meta rules (shapes/convolution_irregular.py), whose arrays
# are handed over. The CUDA kernels run it on the host. ------------------------------------------------


def _geometry(x_shape, w_shape, attrs):
    n, c, h, w = x_shape
    kh, kw = w_shape[2], w_shape[3]
    ho, wo = (
        conv_out_size(
            (h, w)[i],
            (kh, kw)[i],
            attrs["paddings"][i],
            attrs["paddings"][i],
            attrs["strides"][i],
            attrs["dilations"][i],
        )
        for i in range(2)
    )
    return n, c, h, w, kh, kw, ho, wo


def _taps(x_shape, w_shape, offset, attrs):
    """Sampling positions [N, dg, kh, kw, Ho, Wo] (rows, columns) and the four corners' data."""
    n, c, h, w, kh, kw, ho, wo = _geometry(x_shape, w_shape, attrs)
    dg = attrs["deformable_groups"]
    off = offset.reshape(n, dg, kh, kw, 2, ho, wo)
    sh, sw = attrs["strides"]
    ph, pw = attrs["paddings"]
    dh, dw = attrs["dilations"]
    base_y = (np.arange(ho) * sh - ph)[None, :, None] + (np.arange(kh) * dh)[:, None, None]  # [kh, Ho, 1]
    base_x = (np.arange(wo) * sw - pw)[None, None, :] + (np.arange(kw) * dw)[:, None, None]  # [kw, 1, Wo]
    py = base_y[None, None, :, None] + off[:, :, :, :, 0]
    px = base_x[None, None, None, :] + off[:, :, :, :, 1]
    y0, x0 = np.floor(py).astype(np.int64), np.floor(px).astype(np.int64)
    fy, fx = py - y0, px - x0
    inside = (py > -1) & (py < h) & (px > -1) & (px < w)
    corners = []
    for oy, ox in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yy, xx = y0 + oy, x0 + ox
        ok = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
        wt = (fy if oy else 1 - fy) * (fx if ox else 1 - fx)
        dwy = (1 if oy else -1) * (fx if ox else 1 - fx)  # d wt / d y
        dwx = (1 if ox else -1) * (fy if oy else 1 - fy)  # d wt / d x
        corners.append((np.clip(yy, 0, h - 1) * w + np.clip(xx, 0, w - 1), ok, wt, dwy, dwx))
    return corners


def _gather(x, dg, index):
    """x [N, C, H, W] at ``index`` [N, dg, K...] per channel of each deformable group: [N, dg, Cg, K...]."""
    n, c = x.shape[:2]
    flat = x.reshape(n, dg, c // dg, -1)
    idx = index.reshape(n, dg, 1, -1)
    return np.take_along_axis(flat, np.broadcast_to(idx, (n, dg, c // dg, idx.shape[-1])), axis=3)


def _samples(x, w_shape, offset, attrs):
    """(S [N, dg, Cg, K*L]: the bilinear samples, the corners)."""
    dg = attrs["deformable_groups"]
    corners = _taps(x.shape, w_shape, offset, attrs)
    s = 0
    for index, ok, wt, _, _ in corners:
        s = s + _gather(x, dg, index) * (wt * ok).reshape(x.shape[0], dg, 1, -1)
    return s, corners


def _grouped(cols, weight, groups):
    """Output [N, M, L] = per group, Filter [M/G, (C/G) K] @ cols [(C/G) K, L]."""
    n, rows, length = cols.shape
    m = weight.shape[0]
    wg = weight.reshape(groups, m // groups, -1)
    cg = cols.reshape(n, groups, rows // groups, length)
    return np.einsum("gmr,ngrl->ngml", wg, cg).reshape(n, m, length)


def _deformable_forward(ins, attrs):
    x, weight, offset = ins["Input"], ins["Filter"], ins["Offset"]
    n, c, h, w, kh, kw, ho, wo = _geometry(x.shape, weight.shape, attrs)
    dg = attrs["deformable_groups"]
    if n == 0:  # an empty batch: an empty Output (Paddle 2.6.2's dies of SIGFPE: batch % min(64, batch))
        return {"Output": np.zeros((0, weight.shape[0], ho, wo), x.dtype)}
    s, _ = _samples(x, weight.shape, offset, attrs)
    if "Mask" in ins:
        s = s * ins["Mask"].reshape(n, dg, 1, -1)
    cols = s.reshape(n, c * kh * kw, ho * wo)  # rows (c, i, j), as Filter's
    out = _grouped(cols, weight, attrs["groups"])
    return {"Output": out.reshape(n, weight.shape[0], ho, wo).astype(x.dtype)}


def deformable_conv_out(ins, outs, attrs, meta):
    fresh_outputs(_deformable_forward(ins, attrs), ins, outs, meta)


def _deformable_grads(ins, attrs):
    x, weight, offset, dout = ins["Input"], ins["Filter"], ins["Offset"], ins["Output@GRAD"]
    n, c, h, w, kh, kw, ho, wo = _geometry(x.shape, weight.shape, attrs)
    dg, groups, m = attrs["deformable_groups"], attrs["groups"], weight.shape[0]
    if n == 0:  # an empty batch: Filter@GRAD a sum of nothing, the others empty
        empty = {"Input@GRAD": x, "Offset@GRAD": offset, "Mask@GRAD": ins.get("Mask")}
        grads = {
            k: np.zeros(v.shape, x.dtype if k != "Offset@GRAD" else offset.dtype)
            for k, v in empty.items()
            if v is not None
        }
        return dict(grads, **{"Filter@GRAD": np.zeros(weight.shape, weight.dtype)})
    s, corners = _samples(x, weight.shape, offset, attrs)
    mask = ins["Mask"].reshape(n, dg, 1, -1) if "Mask" in ins else 1.0
    cols = (s * mask).reshape(n, groups, c * kh * kw // groups, ho * wo)
    d = dout.reshape(n, groups, m // groups, ho * wo)
    wg = weight.reshape(groups, m // groups, -1)
    grads = {"Filter@GRAD": np.einsum("ngml,ngrl->gmr", d, cols).reshape(weight.shape).astype(weight.dtype)}
    dcols = np.einsum("gmr,ngml->ngrl", wg, d).reshape(n, dg, c // dg, -1)  # d loss / d (mask * S)
    if "Mask" in ins:
        grads["Mask@GRAD"] = (dcols * s).sum(axis=2).reshape(ins["Mask"].shape).astype(x.dtype)
    ds = dcols * mask  # d loss / d S
    dx = np.zeros(x.size)
    dy_off, dx_off = 0, 0
    chan = (np.arange(n)[:, None, None] * c + np.arange(c).reshape(dg, c // dg)[None]) * (h * w)  # [N, dg, Cg]
    for index, ok, wt, dwy, dwx in corners:
        v = _gather(x, dg, index)
        okr = ok.reshape(n, dg, 1, -1)
        flat = chan[..., None] + index.reshape(n, dg, 1, -1)
        dx += np.bincount(flat.reshape(-1), weights=(ds * wt.reshape(n, dg, 1, -1) * okr).reshape(-1), minlength=x.size)
        dy_off = dy_off + (ds * v * okr).sum(axis=2) * dwy.reshape(n, dg, -1)
        dx_off = dx_off + (ds * v * okr).sum(axis=2) * dwx.reshape(n, dg, -1)
    grads["Input@GRAD"] = dx.reshape(x.shape).astype(x.dtype)
    doff = np.stack([dy_off.reshape(n, dg, kh, kw, ho, wo), dx_off.reshape(n, dg, kh, kw, ho, wo)], axis=4)
    grads["Offset@GRAD"] = doff.reshape(offset.shape).astype(offset.dtype)
    return grads


def deformable_conv_grad_out(ins, outs, attrs, meta):
    fresh_outputs(_deformable_grads(ins, attrs), ins, outs, meta)


# the kernels by name CUDA's kernels are given (kernels/cuda/convolution.py's HOST_OPS): the adapters
deformable_conv = adapter(irregular.deformable_meta, deformable_conv_out, "deformable_conv")
deformable_conv_grad = adapter(irregular.deformable_grad_meta, deformable_conv_grad_out, "deformable_conv_grad")


# -- conv_shift: Out[k, i] = sum_j X[k, (i + j - h) mod M] * Y[k, j], h = (N - 1) / 2; the column maps are the
# meta rule's (shapes/convolution_irregular.py) -------------------------------------------------------------


def _sum_into(variant, spec, a, b, out):
    """einsum ``spec`` of ``a`` and ``b`` into ``out``: summed there ("einsum"), or cast into it ("cast")."""
    if variant == "einsum":
        np.einsum(spec, a, b, out=out)
    else:
        np.copyto(out, np.einsum(spec, a, b), casting="unsafe")


def conv_shift(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    _sum_into(meta.variant, "kmn,kn->km", x[:, meta.args[0]], y, outs["Out"])


def conv_shift_grad(ins, outs, attrs, meta):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    forward, back, sums = meta.args
    if "X@GRAD" in outs:
        _sum_into(sums["X@GRAD"], "kmn,kn->km", dout[:, back], y, outs["X@GRAD"])
    if "Y@GRAD" in outs:
        _sum_into(sums["Y@GRAD"], "kmn,km->kn", x[:, forward], dout, outs["Y@GRAD"])
