"""The pooling family's windows and attributes, shared by the kernels of both devices: each output's window
(starts, ends, divisor) per dim as Fluid's and Paddle 2.x's loops clip them, adaptive pooling's attributes,
spp's levels; and pool2d's and pool2d_grad's meta rules (structured kernels, shapes/structured.py), which
decide, once per shape signature of X, the output's shape and dtype and the variant that computes it:

- "loop": a numba loop of kernels/cpu/_pool_loops.py (``Meta.loop``; ``Meta.args``: its constants between
  its inputs, ``Meta.loop_inputs``, and its output), for a regular window geometry (PoolGeometry.regular)
  over float32 or float64 values (a gradient: X, Out and Out@GRAD of one dtype); the unrolled 2x2 loops
  where 2x2 windows at stride 2 stay inside X;
- "numpy": kernels/cpu/_pool.py's vectorised path of a regular geometry in other dtypes (``Meta.args``:
  the geometry, max?, exclusive);
- "boxes": pool3d's path with a depth of 1, for a geometry the loops do not take and adaptive max pooling
  (``Meta.args``: the windows, max?);
- "adaptive": kernels/cpu/_adaptive_pool.py's adaptive average (``Meta.args``: the attributes with ksize
  the output's size).

pool3d's and pool3d_grad's rules decide their windows, pooled one dim at a time ("boxes").

A geometry that leaves no output is refused here (PoolGeometry), as the kernels refused it."""

import numpy as np

from ..base.errors import PeError
from .conv_plans import PoolGeometry
from .conv_pool import adaptive_size, pool3d_geometry, pool3d_out
from .structured import Meta, Spec

_LOOP_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def adaptive_attrs(x_shape, attrs):
    """An adaptive pool2d's attributes with ksize its output size (the input's own with global_pooling)."""
    return dict(attrs, ksize=adaptive_size(attrs, x_shape[2:]))


def box_windows(sizes, ksize, strides, pads, outs, inclusive, padded_end=False):
    """Per dim: the windows' (starts, ends) clipped to X, as Fluid's loops clip them (an end may fall at or
    before its start: an empty window), and the divisor per output position (ksize with ``inclusive``;
    with ``padded_end`` too, Paddle 2.x's: the window clipped to the padded input, start + padding
    before, so a ceil_mode window reaching past it divides by less: docs/COMPAT.md, "pool2d")."""
    result = []
    for i, (n, k, s, m) in enumerate(zip(sizes, ksize, strides, outs)):
        start = np.arange(m, dtype=np.int64) * s - pads[2 * i]
        end = np.minimum(start + k, n)
        if inclusive and padded_end:
            div = (np.minimum(start + k, n + pads[2 * i]) - start).astype(np.float64)
        else:
            div = np.full(m, float(k)) if inclusive else None
        start = np.maximum(start, 0)
        result.append((start, end, div if div is not None else (end - start).astype(np.float64)))
    return result


def paddle2_window(attrs, paddle2):
    """Whether an average pool divides as Paddle 2.x does (``paddle2``: the op's ``Operator.paddle2``, set in
    programs that follow Paddle 2.6, framework/program_release.py; a kernel's ``ctx.paddle2``): inclusive
    windows with ceil_mode, which differ from Fluid 1.8's."""
    return (
        bool(paddle2)
        and attrs["pooling_type"] == "avg"
        and not attrs["exclusive"]
        and bool(attrs["ceil_mode"])
        and not attrs["adaptive"]
    )


def adaptive_max_boxes(sizes, attrs):
    """Fluid's pool kernels (1.8.5's and Paddle 2.6's) run max pooling with adaptive=True as a plain one:
    windows of ksize (X's size with global_pooling) at strides from 0, clipped to X; only Out's size,
    ksize, is adaptive pooling's (max_pool2d_with_index pools adaptively)."""
    ksize = adaptive_size(attrs, sizes)
    return box_windows(sizes, ksize, attrs["strides"], [0] * (2 * len(sizes)), ksize, False)


def windows(x_shape, attrs, paddle2=False):
    """Per spatial dim: (starts, ends) of the windows, clipped to X; and the avg divisor per output
    position of each dim (multiplied together: the window volume, or ksize's with exclusive off;
    ``paddle2``: Paddle 2.x's, paddle2_window)."""
    dhw = list(x_shape[2:])
    out = pool3d_out(attrs, dhw)
    result = []
    if attrs["adaptive"] and attrs["pooling_type"] == "max":
        return adaptive_max_boxes(dhw, attrs)
    if attrs["adaptive"]:
        for n, k in zip(dhw, out):
            i = np.arange(k, dtype=np.int64)
            s, e = (i * n) // k, -((-(i + 1) * n) // k)
            result.append((s, e, (e - s).astype(np.float64)))
        return result
    ksize, strides, pads = pool3d_geometry(attrs, dhw)
    return box_windows(
        dhw,
        ksize,
        strides,
        pads,
        out,
        attrs["pooling_type"] == "avg" and not attrs["exclusive"],
        paddle2_window(attrs, paddle2),
    )


def spp_levels(x_shape, attrs):
    """pool2d's attributes of each level p: 2^p bins, windows ceil(H / 2^p) (as many strides apart), padded
    by (window * 2^p - H + 1) / 2, padding left out of averages."""
    h, w = x_shape[2], x_shape[3]
    levels = []
    for p in range(attrs["pyramid_height"]):
        bins = 2**p
        kh, kw = -(-h // bins), -(-w // bins)
        levels.append(
            {
                "pooling_type": attrs["pooling_type"],
                "ksize": [kh, kw],
                "strides": [kh, kw],
                "paddings": [(kh * bins - h + 1) // 2, (kw * bins - w + 1) // 2],
                "global_pooling": False,
                "exclusive": True,
                "adaptive": False,
                "ceil_mode": False,
                "padding_algorithm": "EXPLICIT",
                "data_format": "NCHW",
            }
        )
    return levels


# -- pool2d's and pool2d_grad's meta rules --------------------------------------------------------------


def pool2d_boxes(x_shape, attrs, geo, paddle2):
    """pool2d's windows as a depth-1 pool3d's (``geo`` None: adaptive max pooling, adaptive_max_boxes)."""
    depth = (np.zeros(1, np.int64), np.ones(1, np.int64), np.ones(1))
    if geo is None:
        return [depth] + adaptive_max_boxes(x_shape[2:], attrs)
    inclusive = attrs["pooling_type"] == "avg" and not attrs["exclusive"]
    return [depth] + box_windows(
        x_shape[2:],
        (geo.kh, geo.kw),
        (geo.sh, geo.sw),
        geo.pads,
        (geo.ho, geo.wo),
        inclusive,
        paddle2_window(attrs, paddle2),
    )


def pool2d_loop(geo, x_shape, is_max, exclusive):
    """The numba loop (_pool_loops.py) of a regular float pool2d over X of ``x_shape`` and the constants it
    takes between X and Out (max_pool_2x2 has a parallel twin, the same bits, which the CPU runs over a
    large batch)."""
    if geo.is_2x2_inside(x_shape):
        return ("max_pool_2x2" if is_max else "avg_pool_2x2"), (geo.ho, geo.wo)
    window = (geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2], geo.ho, geo.wo)
    return ("max_pool", window) if is_max else ("avg_pool", (*window, bool(exclusive)))


def pool2d_grad_loop(geo, x_shape, is_max, exclusive):
    """pool2d_grad's loop, the slots it reads (of X, Out, Out@GRAD, in its order) and its constants before
    X@GRAD (max_pool_2x2_grad has a parallel twin)."""
    full = ("X", "Out", "Out@GRAD")
    window = (geo.kh, geo.kw, geo.sh, geo.sw, geo.pads[0], geo.pads[2])
    if geo.is_2x2_inside(x_shape):
        return ("max_pool_2x2_grad", full, ()) if is_max else ("avg_pool_2x2_grad", ("Out@GRAD",), ())
    if is_max:
        return "max_pool_grad", full, window
    return "avg_pool_grad", ("Out@GRAD",), (*window, bool(exclusive))


def _pool2d_other(attrs, shape, outputs, geo, paddle2):
    """The Meta of a pool2d (or its gradient) no loop computes: adaptive (``geo`` None: max over boxes, avg
    by adaptive_pool) or windows the loops do not take; None for a regular window."""
    is_max = attrs["pooling_type"] == "max"
    if geo is None:
        if is_max:
            return Meta(outputs, "boxes", args=(pool2d_boxes(shape, attrs, None, False), True), fresh=True)
        return Meta(outputs, "adaptive", args=(adaptive_attrs(shape, attrs),), fresh=True)
    if not geo.regular:
        return Meta(outputs, "boxes", args=(pool2d_boxes(shape, attrs, geo, paddle2), is_max), fresh=True)
    return None


def _averages_floats(op, attrs, dtype):
    """Refuses an average pool of an int X: Paddle 2.6's CPU pools have no int kernel, and an int mean has no one
    rounding pe could take for Paddle's (a max pool of ints is exact: pe computes it)."""
    if attrs["pooling_type"] == "avg" and np.dtype(dtype).kind in "iub":
        raise PeError(
            f"{op}: average pooling of {np.dtype(dtype).name} X: Paddle 2.6 has no integer pool kernel, and pe "
            f"averages float X only; cast X to float32 or float64 first"
        )


def pool2d_meta(attrs, ins, facts):
    """pool2d: X [N, C, H, W] (an NHWC X is transposed before, kernels/layout.py) -> Out [N, C, Ho, Wo]."""
    shape, dtype = tuple(ins["X"].shape), ins["X"].dtype
    _averages_floats("pool2d", attrs, dtype)
    if attrs["adaptive"]:
        outputs = {"Out": (shape[:2] + tuple(adaptive_size(attrs, shape[2:])), dtype)}
        return _pool2d_other(attrs, shape, outputs, None, facts.paddle2)
    geo = PoolGeometry(shape, attrs, facts.paddle2)
    outputs = {"Out": (shape[:2] + (geo.ho, geo.wo), dtype)}
    is_max = attrs["pooling_type"] == "max"
    other = _pool2d_other(attrs, shape, outputs, geo, facts.paddle2)
    if other is not None:
        return other
    if dtype in _LOOP_DTYPES:
        name, consts = pool2d_loop(geo, shape, is_max, attrs["exclusive"])
        return Meta(outputs, "loop", name, ("X",), args=consts)
    return Meta(outputs, "numpy", args=(geo, is_max, attrs["exclusive"]), fresh=True)


def pool2d_grad_meta(attrs, ins, facts):
    """pool2d_grad: (X, Out, Out@GRAD) -> X@GRAD of X's shape and dtype."""
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    shape, dtype = tuple(x.shape), x.dtype
    _averages_floats("pool2d_grad", attrs, dtype)
    outputs = {"X@GRAD": (shape, dtype)}
    geo = None if attrs["adaptive"] else PoolGeometry(shape, attrs, facts.paddle2)
    other = _pool2d_other(attrs, shape, outputs, geo, facts.paddle2)
    if other is not None:
        return other
    is_max = attrs["pooling_type"] == "max"
    if dtype in _LOOP_DTYPES and out.dtype == dtype and dout.dtype == dtype:
        name, reads, consts = pool2d_grad_loop(geo, shape, is_max, attrs["exclusive"])
        return Meta(outputs, "loop", name, reads, args=consts)
    return Meta(outputs, "numpy", args=(geo, is_max, attrs["exclusive"]), fresh=True)


def pool3d_meta(attrs, ins, facts):
    """pool3d: X [N, C, D, H, W] (NDHWC transposed before) -> Out of one position per window and dim; its
    one variant, "boxes", with the windows (``Meta.args``: the windows, max?)."""
    shape = tuple(ins["X"].shape)
    _averages_floats("pool3d", attrs, ins["X"].dtype)
    wins = windows(shape, attrs, facts.paddle2)
    outputs = {"Out": (shape[:2] + tuple(len(starts) for starts, _, _ in wins), ins["X"].dtype)}
    return Meta(outputs, "boxes", args=(wins, attrs["pooling_type"] == "max"), fresh=True)


def pool3d_grad_meta(attrs, ins, facts):
    """pool3d_grad: (X, Out, Out@GRAD) -> X@GRAD of X's shape and dtype, over pool3d's windows."""
    shape = tuple(ins["X"].shape)
    _averages_floats("pool3d_grad", attrs, ins["X"].dtype)
    wins = windows(shape, attrs, facts.paddle2)
    return Meta({"X@GRAD": (shape, ins["X"].dtype)}, "boxes", args=(wins, attrs["pooling_type"] == "max"), fresh=True)


# -- spp's meta rules: a pool2d Meta per level ------------------------------------------------------------


class _Fluid:
    """The facts spp's levels are pooled under: Fluid's pool2d (spp has no Paddle 2.x form)."""

    paddle2 = False


def _bins_pooled(meta):
    """The positions a level's pool2d pools ([Ho, Wo]): 2^p x 2^p, but where X's H (W) is below 2^p by an odd
    count, Fluid's windows of 1 padded by (2^p - H + 1) / 2 pool 2^p + 1."""
    return tuple(meta.outputs["Out"][0][2:])


def spp_meta(attrs, ins, facts):
    """spp: Out [N, sum over the levels p of C * 4^p] of X's dtype; ``args``: each level's pool2d attributes and
    Meta; a scratch buffer for each level's pooled values a loop writes (``@level<p>``; a ``fresh`` level's numpy
    form makes its own). A level pooling 2^p + 1 positions (X below 2^p by an odd count) keeps the first 2^p of
    them, as Paddle 2.6.2's spp does."""
    x = ins["X"]
    levels, scratch, width = [], {}, 0
    for p, level in enumerate(spp_levels(x.shape, attrs)):
        meta = pool2d_meta(level, {"X": x}, _Fluid)
        if not meta.fresh:
            scratch[f"@level{p}"] = meta.outputs["Out"]
        width += x.shape[1] * 4**p
        levels.append((level, meta))
    return Meta({"Out": ((x.shape[0], width), np.dtype(x.dtype))}, "levels", scratch=scratch, args=tuple(levels))


def spp_grad_meta(attrs, ins, facts):
    """spp_grad: X@GRAD of X's shape and dtype, the sum of each level's pool2d gradient (``args``: each level's
    attributes and pool2d_grad Meta over its part of Out and Out@GRAD, [N, C, 2^p, 2^p]; ``@level<p>`` scratch as
    spp's). Refused where a level pools more than 2^p x 2^p positions (X below 2^p by an odd count), as Paddle
    2.6.2 refuses it."""
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    levels, scratch = [], {}
    for p, level in enumerate(spp_levels(x.shape, attrs)):
        bins = 2**p
        pooled = _bins_pooled(pool2d_meta(level, {"X": x}, _Fluid))
        if pooled != (bins, bins):
            raise PeError(
                f"spp_grad: X {list(x.shape)} is too small for pyramid_height={attrs['pyramid_height']}: level {p}'s "
                f"windows pool {pooled[0]} x {pooled[1]} positions of which spp keeps {bins} x {bins} (Paddle 2.6.2 "
                f"refuses this gradient too); give X an H and W of at least {bins}, or a lower pyramid_height"
            )
        shape = tuple(x.shape[:2]) + (bins, bins)
        parts = {"X": x, "Out": Spec(shape, out.dtype), "Out@GRAD": Spec(shape, dout.dtype)}
        meta = pool2d_grad_meta(level, parts, _Fluid)
        if not meta.fresh:
            scratch[f"@level{p}"] = meta.outputs["X@GRAD"]
        levels.append((level, meta))
    outputs = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}
    return Meta(outputs, "levels", scratch=scratch, args=tuple(levels))
