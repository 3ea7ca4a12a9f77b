"""Meta rules of the channel rearrangements (ops/channel_rearranging.py; structured kernels, shapes/structured.py;
CPU out-kernels: kernels/cpu/channel_rearranging.py): each output's shape and dtype from its input's, the variant
its layout ("NCHW" or "NHWC": the elements moved in that layout, no transpose through NCHW) and the factor the
move reads (``args``). The gradients read Out@GRAD alone (X needs no buffer)."""

from ..base.errors import PeError
from .structured import Meta


def _dims(shape, fmt):
    n, a, b, c = shape
    return (n, c, a, b) if fmt == "NHWC" else (n, a, b, c)


def _shape(n, c, h, w, fmt):
    return (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)


def pixel_unshuffle_meta(attrs, ins, facts):
    """pixel_unshuffle: Out [N, C r^2, H / r, W / r] (in X's layout), r = downscale_factor dividing H and W."""
    x, r, fmt = ins["X"], attrs["downscale_factor"], attrs["data_format"]
    n, c, h, w = _dims(x.shape, fmt)
    if r <= 0 or h % r or w % r:
        raise PeError(f"pixel_unshuffle: downscale_factor={r} must divide X's height {h} and width {w}")
    return Meta({"Out": (_shape(n, c * r * r, h // r, w // r, fmt), x.dtype)}, fmt, args=(r,))


def pixel_unshuffle_grad_meta(attrs, ins, facts):
    """pixel_unshuffle_grad: X@GRAD [N, C / r^2, H r, W r] of Out@GRAD's (pixel_shuffle of it)."""
    d, r, fmt = ins["Out@GRAD"], attrs["downscale_factor"], attrs["data_format"]
    n, c, h, w = _dims(d.shape, fmt)
    return Meta({"X@GRAD": (_shape(n, c // (r * r), h * r, w * r, fmt), d.dtype)}, fmt, args=(r,))


def channel_shuffle_meta(attrs, ins, facts):
    """channel_shuffle: Out of X's shape, the channels read as [groups, C / groups] and written transposed."""
    x, g, fmt = ins["X"], attrs["groups"], attrs["data_format"]
    c = _dims(x.shape, fmt)[1]
    if g <= 0 or c % g:
        raise PeError(f"channel_shuffle: groups={g} must divide X's {c} channels")
    return Meta({"Out": (tuple(x.shape), x.dtype)}, fmt, args=(g,))


def channel_shuffle_grad_meta(attrs, ins, facts):
    """channel_shuffle_grad: X@GRAD = the shuffle of Out@GRAD by C / groups groups (the inverse move)."""
    d, fmt = ins["Out@GRAD"], attrs["data_format"]
    return Meta({"X@GRAD": (tuple(d.shape), d.dtype)}, fmt, args=(_dims(d.shape, fmt)[1] // attrs["groups"],))
