"""Meta rules of frame, overlap_add and fold and their gradients (ops/framing.py, ops/folding.py; structured
kernels, shapes/structured.py; their CPU out-kernels: kernels/cpu/framing.py, kernels/cpu/folding.py). Their numpy
forms (fancy indexing, np.add.at, unfold's) make their arrays: fresh variants."""

from .structured import Meta


def frame_meta(attrs, ins, facts):
    """frame's Out: X's frames of ``frame_length`` every ``hop_length`` along its last dim ([..., length, frames])
    or its first (axis 0: [frames, length, ...]), X's dtype; "frame"."""
    x, length, hop = ins["X"], attrs["frame_length"], attrs["hop_length"]
    shape = tuple(x.shape)
    if attrs["axis"] == 0:
        out = (1 + (shape[0] - length) // hop, length) + shape[1:]
    else:
        out = shape[:-1] + (length, 1 + (shape[-1] - length) // hop)
    return Meta({"Out": (out, x.dtype)}, "frame", fresh=True)


def overlap_add_meta(attrs, ins, facts):
    """overlap_add's Out: X's frames ([..., length, frames], or [frames, length, ...] along axis 0) laid
    ``hop_length`` apart and added, X's dtype; "add"."""
    x, hop = ins["X"], attrs["hop_length"]
    shape = tuple(x.shape)
    if attrs["axis"] == 0:
        return Meta({"Out": (((shape[0] - 1) * hop + shape[1],) + shape[2:], x.dtype)}, "add", fresh=True)
    return Meta({"Out": (shape[:-2] + ((shape[-1] - 1) * hop + shape[-2],), x.dtype)}, "add", fresh=True)


def framed_grad_meta(attrs, ins, facts):
    """frame_grad's and overlap_add_grad's X@GRAD (X's shape, Out@GRAD's dtype): the other op on Out@GRAD."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "other", fresh=True)


def fold_meta(attrs, ins, facts):
    """fold's Y: [N, C / (kh * kw)] + output_sizes, X's dtype; "add" (unfold's gradient, fresh)."""
    x = ins["X"]
    kh, kw = attrs["kernel_sizes"]
    shape = (x.shape[0], x.shape[1] // (kh * kw)) + tuple(attrs["output_sizes"])
    return Meta({"Y": (shape, x.dtype)}, "add", fresh=True)


def fold_grad_meta(attrs, ins, facts):
    """fold_grad's X@GRAD (X's shape and dtype): unfold of Y@GRAD; "unfold" (fresh)."""
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), x.dtype)}, "unfold", fresh=True)
