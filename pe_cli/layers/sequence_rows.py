"""Sequence layers that reorder, repeat, pad or mask the rows of LoD sequences, with Fluid's
signatures: sequence_reverse, sequence_expand, sequence_pad, sequence_unpad, sequence_mask."""

from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from .checks import NUMBERS, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper

__all__ = ["sequence_reverse", "sequence_expand", "sequence_pad", "sequence_unpad", "sequence_mask"]


def _one(op_type, inputs, out_slot="Out", attrs=None, name=None, dtype=None):
    helper = LayerHelper(op_type, name=name)
    first = next(iter(inputs.values()))
    out = helper.create_variable_for_type_inference(dtype or first.dtype)
    helper.append_op(op_type, {k: [v] for k, v in inputs.items()}, {out_slot: [out]}, attrs or {})
    return out


def sequence_reverse(x, name=None):
    """Each sequence's time steps in reverse order (the LoD is kept)."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int8", "int32", "int64"), "sequence_reverse")
    return _one("sequence_reverse", {"X": x}, "Y", name=name)


@fluid_checks("sequence_expand", x=("float32", "float64", "int32", "int64"))
def sequence_expand(x, y, ref_level=-1, name=None):
    """x's sequence i (row i when x has no LoD) repeated as often as y's sequence i is long."""
    return _one("sequence_expand", {"X": x, "Y": y}, attrs={"ref_level": ref_level}, name=name)


def sequence_pad(x, pad_value, maxlen=None, name=None):
    """(padded [num_sequences, maxlen, ...], lengths): sequences as a dense batch, pad_value past each end."""
    check_variable_and_dtype(x, "x", NUMBERS[1:], "sequence_pad")
    check_variable_and_dtype(pad_value, "pad_value", NUMBERS[1:], "sequence_pad")
    helper = LayerHelper("sequence_pad", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    length = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "sequence_pad",
        {"X": [x], "PadValue": [pad_value]},
        {"Out": [out], "Length": [length]},
        {"padded_length": -1 if maxlen is None else maxlen},
    )
    return out, length


sequence_pad.variable_arguments = frozenset({"pad_value"})  # a model file names the layer holding it


@fluid_checks("sequence_unpad", x=("float32", "float64", "int32", "int64"), length=("int64",))
def sequence_unpad(x, length, name=None):
    """The first length[i] steps of each padded sequence i, as a LoDTensor."""
    return _one("sequence_unpad", {"X": x, "Length": length}, name=name)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """A 0/1 mask [..., maxlen]: 1 where the position is below the length in x. ``maxlen`` may be an
    int Variable (the length at run time: ``layers.shape(src)[1]``), as Fluid's."""
    dtype = convert_dtype(dtype)
    inputs = {"X": x}
    if isinstance(maxlen, Variable):
        inputs["MaxLenTensor"], maxlen = maxlen, None
    out = _one(
        "sequence_mask",
        inputs,
        "Y",
        {"maxlen": -1 if maxlen is None else maxlen, "out_dtype": dtype},
        name=name,
        dtype=dtype,
    )
    out.stop_gradient = True
    return out
