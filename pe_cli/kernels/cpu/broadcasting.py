"""CPU out-kernels of the tiling and broadcasting ops (structured kernels; their meta rules in
shapes/broadcasting.py): expand, tile, expand_as, expand_v2 and expand_as_v2 copy X into Out's buffer viewed as
[t0, d0, t1, d1, ...] in one broadcast copy (np.tile's values); their gradients sum Out@GRAD over the repeats
(numpy's sum, a fresh array). broadcast_tensors copies each X broadcast (np.tile's values); its gradient is
expand_v2_grad's."""

import numpy as np

from ...shapes.broadcasting import expand_v2_grad_meta
from ..structured import adapter, fresh_output
from .launches import by_variant


def _tile(ins, outs, attrs, meta):
    ones, split = meta.args
    np.copyto(outs["Out"].reshape(split), ins["X"].reshape(ones))


def _sum(ins, outs, attrs, meta):
    split, axes, shape = meta.args
    x, dout = ins["X"], ins["Out@GRAD"]
    dx = np.add.reduce(dout.reshape(split), axis=axes).astype(x.dtype, copy=False)  # (ndarray.sum's)
    if shape is not None and dx.shape != shape:
        if dx.base is None and dx.flags.c_contiguous and dx is not dout:
            dx.shape = shape  # (the sum's new array, shaped in place: no view, which fresh_output would copy)
        else:
            dx = dx.reshape(shape)
    outs["X@GRAD"] = fresh_output(dx, meta.outputs["X@GRAD"], ins.values())


def _empty(ins, outs, attrs, meta):
    """Out has no element (X had none, a time below 0: numpy's empty tile)."""


TILE = by_variant("tile_out", None, tile=_tile, empty=_empty)
TILE_GRAD = by_variant("tile_grad_out", None, sum=_sum)

_expand_v2_grad = adapter(expand_v2_grad_meta, TILE_GRAD, "expand_v2_grad")  # (broadcast_tensors_grad's parts)


def broadcast_tensors_out(ins, outs, attrs, meta):
    for x, out in zip(ins["X"], outs["Out"]):
        np.copyto(out, x)  # (X broadcast to Out's shape)


def broadcast_tensors_grad_out(ins, outs, attrs, meta):
    """Each Out@GRAD summed back to its X's shape (expand_v2_grad's out-kernel's new arrays)."""
    outs["X@GRAD"] = [_expand_v2_grad({"X": x, "Out@GRAD": d}, {})["X@GRAD"] for x, d in zip(ins["X"], ins["Out@GRAD"])]
