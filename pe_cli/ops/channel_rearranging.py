"""Paddle 2.x's channel rearrangements, under Paddle 2.6's op types: pixel_unshuffle (pixel_shuffle's inverse:
[N, C, H, W] -> [N, C r^2, H / r, W / r], r = downscale_factor) and channel_shuffle ([N, C, H, W] with the
channels read as [groups, C / groups] and written transposed); data_format NCHW or NHWC. Each moves elements
to fixed places; the gradient moves them back."""

from ..kernels.cpu import channel_rearranging as cpu_channels
from ..shapes import channel_rearranging as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grad_of, grads_like, register
from .pointwise_math import QUANT

_FORMAT = Attr("NCHW", choices=("NCHW", "NHWC"))


def _nchw(ctx):
    x = ctx.shape("X")
    if len(x) != 4:
        ctx.fail(f"X {fmt_shape(x)} must be 4-D")
    return (x[0], x[3], x[1], x[2]) if ctx.attrs["data_format"] == "NHWC" else tuple(x)


def _set(ctx, n, c, h, w):
    ctx.set_output("Out", [n, h, w, c] if ctx.attrs["data_format"] == "NHWC" else [n, c, h, w], ctx.dtype("X"))


def _infer_pixel_unshuffle(ctx):
    n, c, h, w = _nchw(ctx)
    r = ctx.attrs["downscale_factor"]
    if r <= 0 or (h >= 0 and h % r) or (w >= 0 and w % r):
        ctx.fail(f"downscale_factor={r} must divide X's height {h} and width {w}")
    _set(ctx, n, c * r * r if c >= 0 else -1, h // r if h >= 0 else -1, w // r if w >= 0 else -1)


def _infer_channel_shuffle(ctx):
    n, c, h, w = _nchw(ctx)
    g = ctx.attrs["groups"]
    if g <= 0 or (c >= 0 and c % g):
        ctx.fail(f"groups={g} must divide X's {c} channels")
    _set(ctx, n, c, h, w)


def _op(name, attr, infer, doc, forward, backward):
    """The op and its grad op; ``forward``, ``backward``: their structured kernels."""
    attrs = {attr: Attr(1, lambda v: isinstance(v, int) and v > 0, "an int > 0"), "data_format": _FORMAT, **QUANT}

    register(
        name,
        kernel_module="channel_rearranging",
        inputs=["X"],
        outputs=["Out"],
        attrs=attrs,
        infer=infer,
        grad=grad_of(f"{name}_grad", ("X",)),
        grad_reads=("X",),
        doc=doc,
        structured=forward,
    )
    register(
        f"{name}_grad",
        kernel_module="channel_rearranging",
        inputs=["X", "Out@GRAD"],
        outputs=["X@GRAD"],
        attrs=attrs,
        infer=grads_like({"X@GRAD": "X"}),
        no_need_buffer=("X",),
        structured=backward,
    )


_op(
    "pixel_unshuffle",
    "downscale_factor",
    _infer_pixel_unshuffle,
    "Out[n, c r^2 + i r + j, h, w] = X[n, c, h r + i, w r + j], r = downscale_factor (pixel_shuffle's inverse).",
    Structured(meta=metas.pixel_unshuffle_meta, cpu=cpu_channels.PIXEL_UNSHUFFLE),
    Structured(meta=metas.pixel_unshuffle_grad_meta, cpu=cpu_channels.PIXEL_UNSHUFFLE_GRAD),
)
_op(
    "channel_shuffle",
    "groups",
    _infer_channel_shuffle,
    "Out[n, j groups + i] = X[n, i (C / groups) + j]: the channels as [groups, C / groups], transposed.",
    Structured(meta=metas.channel_shuffle_meta, cpu=cpu_channels.CHANNEL_SHUFFLE),
    Structured(meta=metas.channel_shuffle_grad_meta, cpu=cpu_channels.CHANNEL_SHUFFLE_GRAD),
)
