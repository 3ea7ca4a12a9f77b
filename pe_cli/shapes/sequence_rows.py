"""Row maps and meta rules of the sequence ops that move whole rows by a map from the LoD (ops/sequence_rows.py):
sequence_reverse, sequence_pad, sequence_expand and their gradients (sequence_unpad, sequence_mask and
sequence_erase too: ``fresh`` variants, their lengths given by values: -1 in their rules' shapes). Each rule reads the LoD of the call
(``facts.lod``: a structured step keeps its Meta per signature and LoD, kernels/structured.step_kernel) and
decides the row map once; the out-kernels (kernels/cpu/sequence_rows.py) gather or scatter-add by it. The maps
are the CUDA twins' too (kernels/common.py names them)."""

import numpy as np

from ..base.errors import PeError
from .sequence import lod_offsets
from .structured import Meta


def reverse_index(offs):
    """Each sequence's rows in reverse order."""
    idx = np.arange(int(offs[-1]), dtype=np.int64)
    for a, b in zip(offs[:-1], offs[1:]):
        idx[a:b] = idx[a:b][::-1]
    return idx


def expand_index(x_offs, ref_offs, x_rows=None):
    """sequence_expand: x's sequence i (its row i without a LoD: ``x_offs`` None, ``x_rows`` rows)
    repeated ref's length-i times; returns the row map and the output's offsets (one sequence per
    repeat), None when x has no LoD (Fluid: a plain X gives a plain Out)."""
    plain = x_offs is None
    if plain:
        x_offs = np.arange(len(ref_offs) if x_rows is None else x_rows + 1, dtype=np.int64)
    if len(x_offs) != len(ref_offs):
        what = "rows" if plain else "sequences"
        raise PeError(
            f"sequence_expand: X has {len(x_offs) - 1} {what} but Y's LoD level has "
            f"{len(ref_offs) - 1} sequences; they must match"
        )
    rows, out_offs = [], [0]
    for i in range(len(ref_offs) - 1):
        for _ in range(int(ref_offs[i + 1] - ref_offs[i])):
            rows.append(np.arange(x_offs[i], x_offs[i + 1]))
            out_offs.append(out_offs[-1] + int(x_offs[i + 1] - x_offs[i]))
    idx = np.concatenate(rows).astype(np.int64) if rows else np.zeros(0, np.int64)
    return idx, (None if plain else out_offs)


def pad_index(offs, padded_length):
    """sequence_pad: [nseq, length] positions -> x row, -1 past a sequence's end."""
    lengths = np.diff(offs)
    length = int(lengths.max(initial=0)) if padded_length < 0 else padded_length
    if lengths.size and lengths.max() > length:
        raise PeError(
            f"sequence_pad: padded_length {padded_length} is shorter than the longest sequence ({int(lengths.max())})"
        )
    pos = np.arange(length)[None, :]
    idx = np.where(pos < lengths[:, None], offs[:-1, None] + pos, -1)
    return idx.reshape(-1).astype(np.int64), length


def expand_rows(attrs, ctx, x_rows, y_rows):
    """sequence_expand's row map and output offsets (None for a plain X) from its inputs' LoD: X's
    sequence i repeated as many times as Y's LoD level ``ref_level`` (-1: the last) counts in its
    sequence i. As in Fluid, only a one-level LoD of X groups its rows; X with a deeper LoD (a beam
    search's state) expands row by row."""
    x_lod = ctx.lod.get("X")
    x_offs = np.asarray(x_lod[0], dtype=np.int64) if x_lod and len(x_lod) == 1 else None
    ref = lod_offsets(ctx.lod.get("Y"), "Y", y_rows)
    y_lod, level = ctx.lod["Y"], attrs.get("ref_level", -1)
    if level not in (-1, len(y_lod) - 1):  # an outer level: each count is of its inner sequences
        ref = np.asarray(y_lod[level], dtype=np.int64)
    return expand_index(x_offs, ref, x_rows)


def _offsets(facts, ins, slot):
    return lod_offsets(facts.lod.get(slot), slot, ins[slot].shape[0])


def _like(ins, slot, out):
    x = ins[slot]
    return {out: (tuple(x.shape), np.dtype(x.dtype))}


def _scatter_args(idx):
    valid = idx >= 0
    return (idx, valid, bool(valid.all()))


def reverse_meta(attrs, ins, facts):
    """sequence_reverse: Y of X's shape and dtype, X's rows at the reversed map."""
    return Meta(_like(ins, "X", "Y"), "gather", args=(reverse_index(_offsets(facts, ins, "X")),))


def reverse_grad_meta(attrs, ins, facts):
    """sequence_reverse_grad: X@GRAD, Y@GRAD's rows added back at the reversed map."""
    return Meta(_like(ins, "X", "X@GRAD"), "scatter", args=_scatter_args(reverse_index(_offsets(facts, ins, "X"))))


def expand_meta(attrs, ins, facts):
    """sequence_expand: Out of one row per entry of the row map, X's dtype; its LoD (one sequence per repeat, none
    for a plain X) is the rule's, which the out-kernel sets (``takes_context``)."""
    x = ins["X"]
    idx, offs = expand_rows(attrs, facts, x.shape[0], ins["Y"].shape[0])
    shape = (idx.size,) + tuple(x.shape[1:])
    return Meta({"Out": (shape, np.dtype(x.dtype))}, "gather", args=(idx, {"Out": [offs]} if offs is not None else {}))


def expand_grad_meta(attrs, ins, facts):
    """sequence_expand_grad: X@GRAD, Out@GRAD's rows added back at the row map."""
    x = ins["X"]
    idx = expand_rows(attrs, facts, x.shape[0], ins["Y"].shape[0])[0]
    return Meta(_like(ins, "X", "X@GRAD"), "scatter", args=_scatter_args(idx))


def pad_meta(attrs, ins, facts):
    """sequence_pad: Out [sequences, length, ...] of X's dtype, X's rows at the padded map (PadValue past each end),
    and Length (int64) the sequences' lengths."""
    x = ins["X"]
    offs = _offsets(facts, ins, "X")
    idx, length = pad_index(offs, attrs["padded_length"])
    outputs = {
        "Out": ((offs.size - 1, length) + tuple(x.shape[1:]), np.dtype(x.dtype)),
        "Length": ((offs.size - 1,), np.dtype(np.int64)),
    }
    return Meta(outputs, "pad", args=(np.maximum(idx, 0), idx < 0, np.diff(offs).astype(np.int64)))


def pad_grad_meta(attrs, ins, facts):
    """sequence_pad_grad: X@GRAD, Out@GRAD's rows within each sequence added back to X's rows."""
    idx, _ = pad_index(_offsets(facts, ins, "X"), attrs["padded_length"])
    return Meta(_like(ins, "X", "X@GRAD"), "scatter", args=_scatter_args(idx))


def unpad_grad_meta(attrs, ins, facts):
    """sequence_unpad_grad: X@GRAD of X's shape and dtype, seen as padded rows (X [N, L, ...] as [N * L, ...]; a 2-D
    X's rows of one value); the map from Length's values is the out-kernel's (a value, not a fact of the signature)."""
    x = ins["X"]
    return Meta(_like(ins, "X", "X@GRAD"), "scatter", args=(x.shape[1], (-1,) + (tuple(x.shape[2:]) or (1,))))


def unpad_meta(attrs, ins, facts):
    """sequence_unpad: Out of X's dtype, rows of X's shape past [N, L] (a 2-D X's of one value), as many as Length's
    values sum to (a ``fresh`` variant: the out-kernel's map and LoD)."""
    x = ins["X"]
    return Meta({"Out": ((-1,) + (tuple(x.shape[2:]) or (1,)), np.dtype(x.dtype))}, "unpad", fresh=True)


def mask_meta(attrs, ins, facts):
    """sequence_mask: Y of X's shape and one more axis, of out_dtype; its length the maxlen attribute ("below",
    into the buffer handed), or MaxLenTensor's value or X's largest value (maxlen -1): "mask", a ``fresh`` variant."""
    x, dtype = ins["X"], np.dtype(attrs["out_dtype"])
    if ins.get("MaxLenTensor") is None and int(attrs["maxlen"]) > 0:
        return Meta({"Y": (tuple(x.shape) + (int(attrs["maxlen"]),), dtype)}, "below")
    return Meta({"Y": (tuple(x.shape) + (-1,), dtype)}, "mask", fresh=True)


def erase_meta(attrs, ins, facts):
    """sequence_erase: Out of X's dtype and row shape, the rows whose ids are not tokens (a ``fresh`` variant: its
    rows and LoD the out-kernel's)."""
    x = ins["X"]
    lod_offsets(facts.lod.get("X"), "X", x.shape[0])
    return Meta({"Out": ((-1,) + tuple(x.shape[1:]), np.dtype(x.dtype))}, "erase", fresh=True)
