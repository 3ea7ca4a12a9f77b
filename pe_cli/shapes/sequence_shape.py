"""LoD rules and meta rules of the sequence ops that reshape the LoD (ops/sequence_shape.py): the whole LoD of an
input, checked; sequence_expand_as's row map; sequence_reshape's offsets. The meta rules of sequence_expand_as,
sequence_reshape and their gradients read the LoD of the call (``facts.lod``: a structured step keeps their Meta
per signature and LoD, kernels/structured.step_kernel). sequence_concat, sequence_slice (its Offset and Length
values make its shape) and lod_reset keep their kernels (kernels/cpu/sequence_shape.py)."""

import numpy as np

from ..base.errors import PeError
from .sequence import lod_offsets
from .structured import Meta


def lod_of(ctx, slot, rows, i=None):
    """The whole LoD (offsets per level) of input ``slot`` (its ``i``-th variable for a duplicable
    slot), checked as ``seq_offsets`` checks its last level."""
    lod = ctx.lod.get(slot)
    if i is not None:
        lod = lod[i] if lod else None
    name = slot if i is None else f"{slot} #{i}"
    lod_offsets(lod, name, rows)
    return [np.asarray(level, dtype=np.int64) for level in lod]


def lod_lists(lod):
    """A LoD as plain lists of ints (how kernels hand a computed LoD back: ``ctx.set_lod``)."""
    return [[int(v) for v in level] for level in lod]


def expand_as_index(x_rows, y_offs):
    """sequence_expand_as: row i of X once per step of Y's sequence i."""
    if x_rows != len(y_offs) - 1:
        raise PeError(
            f"sequence_expand_as: X has {x_rows} rows but Y has {len(y_offs) - 1} sequences; "
            f"X needs one row per sequence of Y"
        )
    return np.repeat(np.arange(x_rows, dtype=np.int64), np.diff(y_offs))


def reshape_offsets(offs, width, new_dim):
    """sequence_reshape: each sequence's offsets scaled by width / new_dim (exactly)."""
    scaled = np.asarray(offs, dtype=np.int64) * width
    if (scaled % new_dim).any():
        i = int(np.flatnonzero(np.diff(scaled) % new_dim)[0]) if (np.diff(scaled) % new_dim).any() else 0
        raise PeError(
            f"sequence_reshape: sequence {i} holds {int(scaled[i + 1] - scaled[i])} values "
            f"({int(offs[i + 1] - offs[i])} steps of {width}), not a multiple of new_dim {new_dim}"
        )
    return scaled // new_dim


def expand_as_meta(attrs, ins, facts):
    """sequence_expand_as: Out of one row per step of Y, X's row i once per step of Y's sequence i."""
    x = ins["X"]
    idx = expand_as_index(x.shape[0], lod_of(facts, "Y", ins["Y"].shape[0])[-1])
    shape = (idx.size,) + tuple(x.shape[1:])
    return Meta({"Out": (shape, np.dtype(x.dtype))}, "gather", args=(idx,))


def expand_as_grad_meta(attrs, ins, facts):
    """sequence_expand_as_grad: X@GRAD of X's shape and dtype, Out@GRAD's rows added back at the map."""
    x = ins["X"]
    idx = expand_as_index(x.shape[0], lod_of(facts, "Y", ins["Y"].shape[0])[-1])
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "scatter", args=(idx, idx >= 0, True))


def reshape_meta(attrs, ins, facts):
    """sequence_reshape: Out, X's values as rows of new_dim (a view of X where it is C-contiguous); its LoD, the
    offsets scaled, the rule's, which the out-kernel sets (``takes_context``)."""
    x, new_dim = ins["X"], attrs["new_dim"]
    lod = lod_of(facts, "X", x.shape[0])
    offs = reshape_offsets(lod[-1], x.shape[1], new_dim)
    size = int(np.prod(x.shape, dtype=np.int64))
    out = {"Out": ((size // new_dim, new_dim), np.dtype(x.dtype))}
    return Meta(out, "view", args=({"Out": lod_lists(lod[:-1] + [offs])},), views={"Out": "X"})


def reshape_grad_meta(attrs, ins, facts):
    """sequence_reshape_grad: X@GRAD, Out@GRAD's values in X's shape (a view where it is C-contiguous)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    lod_offsets(facts.lod.get("X"), "X", x.shape[0])
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(dout.dtype))}, "view", views={"X@GRAD": "Out@GRAD"})
