"""Meta rules (shapes/structured.py) of the ops that write and read tensor files (ops/tensor_file.py), whose
out-kernels touch files (``Structured.python``). What a file holds is known only once it is read: load's Out and
load_combine's Out (one per variable the op names, ``facts.count``) are ``fresh`` values of the file's shape and
dtype ((None, None)), "file"; save has no output, nor has save_combine, but with save_to_memory its Y, the bytes of
a length the serialized tensors give (-1), "file" too. save_combine refuses a row-sparse X (Fluid's SaveCombineOp
takes LoDTensors alone) in one line."""

import numpy as np

from ..base.errors import PeError
from ..base.selected_rows import SelectedRows
from .structured import Meta


def load_meta(attrs, ins, facts):
    return Meta({"Out": (None, None)}, "file", fresh=True)


def load_combine_meta(attrs, ins, facts):
    return Meta({"Out": [(None, None)] * (facts.count("Out") or 0)}, "file", fresh=True)


def save_meta(attrs, ins, facts):
    return Meta({}, "file")


def save_combine_meta(attrs, ins, facts):
    if any(isinstance(x, SelectedRows) for x in ins["X"]):
        raise PeError("save_combine: SaveCombineOp only supports LoDTensor; save a SelectedRows with the save op")
    if attrs["save_to_memory"]:
        return Meta({"Y": ((-1,), np.dtype(np.uint8))}, "file", fresh=True)
    return Meta({}, "file")


def read_file_meta(attrs, ins, facts):
    """read_file's Out: the file's bytes, uint8, as many as the file holds (-1), "file"."""
    return Meta({"Out": ((-1,), np.dtype(np.uint8))}, "file", fresh=True)
