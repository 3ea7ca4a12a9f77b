"""CPU out-kernels of slice, strided_slice and their gradients (structured kernels; their meta rules, which
decide the window and the variant, in shapes/indexing.py). Out is a view of Input where the Meta says so
(nothing to do here); else the window is copied into the buffer handed ("window"). A gradient's buffer gets
zeros and Out@GRAD in the window ("place"; numpy's assignment, which casts as the old kernels' did)."""

import numpy as np

from .launches import by_variant, view_launches


def _window(ins, outs, attrs, meta):
    index, shape = meta.args
    out = outs["Out"]
    np.copyto(out if shape is None else out.reshape(shape), ins["Input"][index])


def _place(ins, outs, attrs, meta):
    index, shape = meta.args
    dx = outs["Input@GRAD"]
    dx.fill(0)
    dx[index] = ins["Out@GRAD"].reshape(shape)


def _nothing(ins, outs, attrs, meta):
    """Out is Input (or Input@GRAD Out@GRAD) in another shape: Meta.views, put in ``outs`` before the call."""


SLICE = by_variant("slice_out", view_launches, window=_window, view=_nothing)
SLICE_GRAD = by_variant("slice_grad_out", view_launches, place=_place, view=_nothing)
