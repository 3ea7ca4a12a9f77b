"""LoD rules and meta rules of the sequence ops that reshape the LoD (ops/sequence_shape.py): the whole LoD of an
input, checked; sequence_expand_as's row map; sequence_reshape's offsets. The meta rules of sequence_expand_as,
sequence_reshape and their gradients read the LoD of the call (``facts.lod``: a structured step keeps their Meta
per signature and LoD, kernels/structured.step_kernel), as do sequence_concat's and its gradient's (the row map of
the inputs' LoDs); sequence_slice's rows come from its Offset and Length values (a ``fresh`` variant, the map the
out-kernel's) and lod_reset's Out is X itself (its LoD set by the out-kernel: Y's values may give it)."""

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


def concat_index(offs_list):
    """sequence_concat: the output's row map into the inputs' rows stacked in order, and its offsets."""
    n = len(offs_list[0]) - 1
    for j, offs in enumerate(offs_list):
        if len(offs) - 1 != n:
            raise PeError(
                f"sequence_concat: X #{j} has {len(offs) - 1} sequences but X #0 has {n}; "
                f"every input needs as many sequences"
            )
    bases = np.cumsum([0] + [int(o[-1]) for o in offs_list])
    parts = [bases[j] + np.arange(offs[i], offs[i + 1]) for i in range(n) for j, offs in enumerate(offs_list)]
    lengths = sum(np.diff(offs) for offs in offs_list)
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return idx, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def concat_map(xs, ctx):
    """(the rows of sequence_concat's Out as rows of the inputs stacked, Out's LoD) of the inputs ``xs``
    (slot X of ``ctx``), concatenated sequence by sequence along their last LoD level."""
    lods = [lod_of(ctx, "X", x.shape[0], i) for i, x in enumerate(xs)]
    idx, offs = concat_index([lod[-1] for lod in lods])
    return idx, lods[0][:-1] + [offs]


def concat_meta(attrs, ins, facts):
    """sequence_concat: Out of one row per entry of the row map (the inputs' dtypes joined as numpy joins them); its
    LoD, the rule's, which the out-kernel sets (``takes_context``)."""
    xs = ins["X"]
    idx, lod = concat_map(xs, facts)
    dtype = np.result_type(*[x.dtype for x in xs])
    shape = (idx.size,) + tuple(xs[0].shape[1:])
    return Meta({"Out": (shape, dtype)}, "gather", args=(idx, {"Out": lod_lists(lod)}))


def concat_grad_meta(attrs, ins, facts):
    """sequence_concat_grad: X@GRAD #j, Out@GRAD's rows of input j (Out@GRAD's dtype): the row map inverted, cut
    at each input's rows."""
    xs, dout = ins["X"], ins["Out@GRAD"]
    idx, _ = concat_map(xs, facts)
    inverse = np.empty(idx.size, np.int64)
    inverse[idx] = np.arange(idx.size, dtype=np.int64)
    bounds = np.concatenate([[0], np.cumsum([x.shape[0] for x in xs])]).astype(np.int64)
    specs = [((int(b - a),) + tuple(dout.shape[1:]), np.dtype(dout.dtype)) for a, b in zip(bounds[:-1], bounds[1:])]
    return Meta({"X@GRAD": specs}, "gather", args=(inverse, bounds))


def slice_meta(attrs, ins, facts):
    """sequence_slice: Out of X's dtype and row shape, as many rows as Length's values sum to (a ``fresh`` variant:
    the out-kernel maps them and sets Out's LoD)."""
    x = ins["X"]
    lod_of(facts, "X", x.shape[0])
    return Meta({"Out": ((-1,) + tuple(x.shape[1:]), np.dtype(x.dtype))}, "slice", fresh=True)


def slice_grad_meta(attrs, ins, facts):
    """sequence_slice_grad: X@GRAD of X's shape and dtype, Out@GRAD's rows added back at the map of Offset's and
    Length's values (the out-kernel's)."""
    x = ins["X"]
    lod_of(facts, "X", x.shape[0])
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "scatter")


def lod_reset_meta(attrs, ins, facts):
    """lod_reset: Out is X as it is (an alias); its LoD (Y's, Y's values or target_lod) the out-kernel's."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "alias", aliases={"Out": "X"})
