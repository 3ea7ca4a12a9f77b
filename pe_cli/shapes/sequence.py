"""The sequence families' rules on LoD and lengths, shared by the kernels of both devices: the offsets of an input's
last LoD level, each row's position in its sequence, sequence_mask's length, the CVM row each row of cvm reads; and
the meta rules of sequence_pool, sequence_softmax and their gradients (ops/sequence.py), which read the LoD of the
call (``facts.lod``: a structured step keeps their Meta per signature and LoD, kernels/structured.step_kernel)."""

import numpy as np

from ..base.errors import PeError
from .structured import Meta

POOL_CODES = {"AVERAGE": 0, "SUM": 1, "SQRT": 2, "MAX": 3, "LAST": 4, "FIRST": 5}
_INDEX = np.dtype(np.int32)  # (sequence_pool's MaxIndex, as Fluid's kernel makes it)


def lod_offsets(lod, slot, rows):
    """The offsets of the last level of the LoD ``lod`` of input ``slot`` (int64), checked against its rows; a
    plain tensor (no LoD) is refused: sequence ops need to know where sequences end."""
    if not lod:
        raise PeError(
            f"input {slot} has no LoD: this sequence op needs a LoDTensor "
            f"(feed one made with fluid.create_lod_tensor, or a variable with lod_level >= 1)"
        )
    offs = np.asarray(lod[-1], dtype=np.int64)
    if offs[-1] != rows:
        raise PeError(f"input {slot}'s LoD ends at {int(offs[-1])} but it has {rows} rows")
    return offs


def _offsets(facts, ins, slot):
    return lod_offsets(facts.lod.get(slot), slot, ins[slot].shape[0])


def pool_meta(attrs, ins, facts):
    """sequence_pool: Out and MaxIndex (int32) of one row per sequence of X's last level; the numba loop's
    offsets, pool code and pad value (in X's dtype)."""
    x = ins["X"]
    offs, dtype = _offsets(facts, ins, "X"), np.dtype(x.dtype)
    shape = (offs.size - 1,) + tuple(x.shape[1:])
    args = (offs, POOL_CODES[attrs["pooltype"].upper()], dtype.type(attrs["pad_value"]))
    return Meta({"Out": (shape, dtype), "MaxIndex": (shape, _INDEX)}, "loop", args=args)


def pool_grad_meta(attrs, ins, facts):
    """sequence_pool_grad: X@GRAD of X's shape and dtype; the loop's offsets and pool code."""
    x = ins["X"]
    offs = _offsets(facts, ins, "X")
    return Meta(
        {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "loop", args=(offs, POOL_CODES[attrs["pooltype"].upper()])
    )


def _one_score_per_step(op, slot, x):
    """Fluid's run-time check of sequence_softmax(_grad): one value per time step (X [N, 1] or [N]; a declared
    [-1, 1] fed [N, 3] would leave the other values unwritten)."""
    if int(np.prod(x.shape[1:], dtype=np.int64)) != 1 and x.shape[0] != 0:
        raise PeError(f"{op}: {slot} {list(x.shape)} must be [N, 1] or [N]: one score per time step")


def softmax_meta(attrs, ins, facts):
    """sequence_softmax: Out of X's shape and dtype; the offsets of X's sequences."""
    x = ins["X"]
    offs = _offsets(facts, ins, "X")
    _one_score_per_step("sequence_softmax", "X", x)
    return Meta({"Out": (tuple(x.shape), np.dtype(x.dtype))}, "loop", args=(offs,))


def softmax_grad_meta(attrs, ins, facts):
    """sequence_softmax_grad: X@GRAD of Out's shape and dtype; the offsets of Out's sequences (X's LoD)."""
    out = ins["Out"]
    offs = _offsets(facts, ins, "Out")
    _one_score_per_step("sequence_softmax_grad", "Out", out)
    return Meta({"X@GRAD": (tuple(out.shape), np.dtype(out.dtype))}, "loop", args=(offs,))


def positions(x_shape, ctx):
    """Each row's position in its sequence: rows of a [T, P] LoDTensor, or the second dim of a
    dense [N, M, P] batch (as a flat array over the N * M rows)."""
    lod = ctx.lod.get("X")
    if lod:
        offs = np.asarray(lod[-1], dtype=np.int64)
        if len(x_shape) != 2 or offs[-1] != x_shape[0]:
            raise PeError(f"add_position_encoding: X {list(x_shape)} does not match its LoD {offs.tolist()}")
        return np.arange(x_shape[0], dtype=np.int64) - np.repeat(offs[:-1], np.diff(offs))
    if len(x_shape) != 3:
        raise PeError(f"add_position_encoding: X {list(x_shape)} must be 3-D, or a 2-D LoDTensor")
    return np.tile(np.arange(x_shape[1], dtype=np.int64), x_shape[0])


def mask_length(ins, attrs, x, host=np.asarray):
    """sequence_mask's length: MaxLenTensor's value, else the maxlen attribute (-1: x's largest)."""
    if "MaxLenTensor" in ins:
        return int(host(ins["MaxLenTensor"]).reshape(-1)[0])
    return int(host(x).max(initial=0)) if attrs["maxlen"] < 0 else attrs["maxlen"]


def cvm_rows(x_rows, cvm_rows_count, ctx):
    """The CVM row each X row takes its show/click from: its sequence's (LoD input), else its own."""
    lod = ctx.lod.get("X")
    if lod:
        offs = np.asarray(lod[0], dtype=np.int64)
        rows = np.repeat(np.arange(offs.size - 1), np.diff(offs))
    else:
        rows = np.arange(x_rows)
    if rows.size and rows.max() >= cvm_rows_count:
        raise PeError(
            f"cvm: CVM has {cvm_rows_count} rows, but X needs {int(rows.max()) + 1} (one per "
            f"{'sequence' if lod else 'row'})"
        )
    return rows
