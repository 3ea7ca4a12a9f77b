"""add_position_encoding's meta rule (a structured kernel, shapes/structured.py; its out-kernel:
kernels/cpu/position.py), read with X's LoD (``needs_lod``: a Meta per LoD): Out of X's shape and dtype; variant
"loop" for float values (one numba pass adding the encodings' rows), "fresh" otherwise (numpy's form, cast to X's
dtype). ``Meta.args``: (each row's position in its sequence, or None for a dense [N, M, P] batch (each row of
its M), the table's length)."""

import numpy as np

from ..base.errors import PeError
from .sequence import positions
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def add_position_encoding_meta(attrs, ins, facts):
    x = ins["X"]
    shape, dtype = tuple(x.shape), np.dtype(x.dtype)
    if facts.lod.get("X"):
        pos = positions(shape, facts)
        args = (pos, int(pos.max(initial=0)) + 1)
    else:
        if len(shape) != 3:
            raise PeError(f"add_position_encoding: X {list(shape)} must be 3-D, or a 2-D LoDTensor")
        args = (None, shape[1])
    size = 1
    for d in shape:
        size *= d
    if dtype in _FLOATS and size:
        return Meta({"Out": (shape, dtype)}, "loop", args=args)
    return Meta({"Out": (shape, dtype)}, "fresh", fresh=True, args=args)
