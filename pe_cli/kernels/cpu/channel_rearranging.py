"""CPU out-kernels of pe_cli/ops/channel_rearranging.py (structured kernels; meta rules in
shapes/channel_rearranging.py): each assigns its input, seen reshaped and transposed, to the buffer handed seen
reshaped (a view: the buffer is C-contiguous; an assignment costs a microsecond less than np.copyto here), in the
layout the Meta names; no transpose through NCHW. The ops' kernels by name, for CUDA's host fallbacks (kernels/cuda/channel_rearranging.py), are the same two (adapter)."""

from ...shapes import channel_rearranging as rules
from ..structured import adapter
from .launches import by_variant


def _unshuffle_nchw(ins, outs, attrs, meta):
    (r,) = meta.args
    x = ins["X"]
    n, c, h, w = x.shape
    moved = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
    outs["Out"].reshape(moved.shape)[...] = moved


def _unshuffle_nhwc(ins, outs, attrs, meta):
    (r,) = meta.args
    x = ins["X"]
    n, h, w, c = x.shape
    moved = x.reshape(n, h // r, r, w // r, r, c).transpose(0, 1, 3, 5, 2, 4)
    outs["Out"].reshape(moved.shape)[...] = moved


def _shuffle_nchw(ins, outs, attrs, meta):
    (r,) = meta.args
    d, dx = ins["Out@GRAD"], outs["X@GRAD"]
    n, c, h, w = d.shape
    moved = d.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
    dx.reshape(moved.shape)[...] = moved


def _shuffle_nhwc(ins, outs, attrs, meta):
    (r,) = meta.args
    d, dx = ins["Out@GRAD"], outs["X@GRAD"]
    n, h, w, c = d.shape
    moved = d.reshape(n, h, w, c // (r * r), r, r).transpose(0, 1, 4, 2, 5, 3)
    dx.reshape(moved.shape)[...] = moved


def _channels(slot, out_slot, last):
    """channel_shuffle (and its gradient, the shuffle by C / groups): channel i * (C / g) + j to j * g + i."""

    def run(ins, outs, attrs, meta):
        (g,) = meta.args
        x, out = ins[slot], outs[out_slot]
        if last:
            n, h, w, c = x.shape
            moved = x.reshape(n, h, w, g, c // g).transpose(0, 1, 2, 4, 3)
        else:
            n, c, h, w = x.shape
            moved = x.reshape(n, g, c // g, h, w).transpose(0, 2, 1, 3, 4)
        out.reshape(moved.shape)[...] = moved

    return run


PIXEL_UNSHUFFLE = by_variant("pixel_unshuffle_out", None, NCHW=_unshuffle_nchw, NHWC=_unshuffle_nhwc)
PIXEL_UNSHUFFLE_GRAD = by_variant("pixel_unshuffle_grad_out", None, NCHW=_shuffle_nchw, NHWC=_shuffle_nhwc)
CHANNEL_SHUFFLE = by_variant(
    "channel_shuffle_out", None, NCHW=_channels("X", "Out", False), NHWC=_channels("X", "Out", True)
)
CHANNEL_SHUFFLE_GRAD = by_variant(
    "channel_shuffle_grad_out",
    None,
    NCHW=_channels("Out@GRAD", "X@GRAD", False),
    NHWC=_channels("Out@GRAD", "X@GRAD", True),
)

pixel_unshuffle = adapter(rules.pixel_unshuffle_meta, PIXEL_UNSHUFFLE, "pixel_unshuffle")
pixel_unshuffle_grad = adapter(rules.pixel_unshuffle_grad_meta, PIXEL_UNSHUFFLE_GRAD, "pixel_unshuffle_grad")
channel_shuffle = adapter(rules.channel_shuffle_meta, CHANNEL_SHUFFLE, "channel_shuffle")
channel_shuffle_grad = adapter(rules.channel_shuffle_grad_meta, CHANNEL_SHUFFLE_GRAD, "channel_shuffle_grad")
