"""Out-kernels of pe_cli/ops/framing.py (structured kernels, fresh; their meta rules: shapes/framing.py): index arrays over the framed axis (numpy), axis 0 through axis -1."""

import numpy as np

from ...shapes import framing as rules
from ..structured import adapter, fresh_output


def _windows(n, length, hop):
    frames = 1 + (n - length) // hop
    return np.arange(length)[:, None] + hop * np.arange(frames)[None, :]  # [length, frames]


def _frame(x, attrs):
    axis = attrs["axis"]
    xs = np.moveaxis(x, 0, -1) if axis == 0 else x
    out = xs[..., _windows(xs.shape[-1], attrs["frame_length"], attrs["hop_length"])]  # [..., length, frames]
    return np.ascontiguousarray(np.moveaxis(out, (-1, -2), (0, 1)) if axis == 0 else out)


def _overlap_add(x, hop, axis):
    xs = np.moveaxis(x, (0, 1), (-1, -2)) if axis == 0 else x  # [..., length, frames]
    length, frames = xs.shape[-2], xs.shape[-1]
    out = np.zeros(xs.shape[:-2] + ((frames - 1) * hop + length,), x.dtype)
    np.add.at(out, (Ellipsis, _windows((frames - 1) * hop + length, length, hop)), xs)
    return np.ascontiguousarray(np.moveaxis(out, -1, 0) if axis == 0 else out)


def _handed(outs, slot, value, meta, ins):
    outs[slot] = fresh_output(value, meta.outputs[slot], ins.values())


def frame_out(ins, outs, attrs, meta):
    _handed(outs, "Out", _frame(ins["X"], attrs), meta, ins)


def frame_grad_out(ins, outs, attrs, meta):
    dx = _overlap_add(ins["Out@GRAD"], attrs["hop_length"], attrs["axis"]).reshape(ins["X"].shape)
    _handed(outs, "X@GRAD", dx, meta, ins)


def overlap_add_out(ins, outs, attrs, meta):
    _handed(outs, "Out", _overlap_add(ins["X"], attrs["hop_length"], attrs["axis"]), meta, ins)


def overlap_add_grad_out(ins, outs, attrs, meta):
    x = ins["X"]
    length = x.shape[-2] if attrs["axis"] == -1 else x.shape[1]
    _handed(outs, "X@GRAD", _frame(ins["Out@GRAD"], {**attrs, "frame_length": length}).reshape(x.shape), meta, ins)


# (the kernels by name CUDA runs on the host: kernels/cuda/framing.py's HOST_OPS)
frame = adapter(rules.frame_meta, frame_out, "frame")
frame_grad = adapter(rules.framed_grad_meta, frame_grad_out, "frame_grad")
overlap_add = adapter(rules.overlap_add_meta, overlap_add_out, "overlap_add")
overlap_add_grad = adapter(rules.framed_grad_meta, overlap_add_grad_out, "overlap_add_grad")
