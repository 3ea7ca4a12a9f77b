"""Sequence layers that reshape the LoD, with Fluid 1.x's signatures (fluid.layers.sequence_*):
sequence_expand_as, sequence_concat, sequence_slice, sequence_reshape."""
from ..errors import PeError
from .helper import LayerHelper
from .sequence import _one

__all__ = ["sequence_expand_as", "sequence_concat", "sequence_slice", "sequence_reshape"]


def sequence_expand_as(x, y, name=None):
    """Row i of x repeated as many times as y's sequence i is long; the output has y's LoD."""
    return _one("sequence_expand_as", {"X": x, "Y": y}, name=name)


def sequence_concat(input, name=None):
    """The sequences of several LoDTensors joined along time: output sequence i is sequence i of
    input[0], then of input[1], ... (every input has as many sequences)."""
    helper = LayerHelper("sequence_concat", name=name)
    if not isinstance(input, (list, tuple)) or not input:
        raise PeError(f"sequence_concat layer '{helper.name}': input must be a non-empty list of LoDTensors")
    out = helper.create_variable_for_type_inference(input[0].dtype)
    helper.append_op("sequence_concat", {"X": list(input)}, {"Out": [out]})
    return out


def sequence_slice(input, offset, length, name=None):
    """Steps offset[i] .. offset[i] + length[i] - 1 of each sequence i; offset and length are int
    tensors [num_sequences, 1]."""
    offset.stop_gradient = True
    length.stop_gradient = True
    return _one("sequence_slice", {"X": input, "Offset": offset, "Length": length}, name=name)


def sequence_reshape(input, new_dim):
    """Each sequence's values re-cut into rows of new_dim ([steps, D] -> [steps * D / new_dim, new_dim])."""
    return _one("sequence_reshape", {"X": input}, attrs={"new_dim": new_dim})
