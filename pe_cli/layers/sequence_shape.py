"""Sequence layers that reshape the LoD, with Fluid 1.x's signatures (fluid.layers.sequence_*):
sequence_expand_as, sequence_concat, sequence_slice, sequence_reshape; lod_reset and lod_append
(a LoD given to a tensor's rows)."""

from ..base.errors import ArgumentValueError, PeError
from ..framework import Variable
from .checks import check_type, check_variable_and_dtype, fluid_checks
from .helper import LayerHelper
from .sequence_rows import _one

__all__ = ["sequence_expand_as", "sequence_concat", "sequence_slice", "sequence_reshape", "lod_reset", "lod_append"]


@fluid_checks("sequence_expand_as", x=("float32", "float64", "int32", "int64"), y=Variable)
def sequence_expand_as(x, y, name=None):
    """Row i of x repeated as many times as y's sequence i is long; the output has y's LoD."""
    return _one("sequence_expand_as", {"X": x, "Y": y}, name=name)


def sequence_concat(input, name=None):
    """The sequences of several LoDTensors joined along time: output sequence i is sequence i of
    input[0], then of input[1], ... (every input has as many sequences)."""
    check_type(input, "input", (list, tuple), "sequence_concat")
    for i, x in enumerate(input):
        check_variable_and_dtype(x, f"input[{i}]", ("int64", "float32", "float64"), "sequence_concat")
    helper = LayerHelper("sequence_concat", name=name)
    if not isinstance(input, (list, tuple)) or not input:
        raise PeError(f"sequence_concat layer '{helper.name}': input must be a non-empty list of LoDTensors")
    out = helper.create_variable_for_type_inference(input[0].dtype)
    helper.append_op("sequence_concat", {"X": list(input)}, {"Out": [out]})
    return out


@fluid_checks(
    "sequence_slice",
    input=("float32", "float64", "int32", "int64"),
    offset=("int32", "int64"),
    length=("int32", "int64"),
)
def sequence_slice(input, offset, length, name=None):
    """Steps offset[i] .. offset[i] + length[i] - 1 of each sequence i; offset and length are int
    tensors [num_sequences, 1]."""
    offset.stop_gradient = True
    length.stop_gradient = True
    return _one("sequence_slice", {"X": input, "Offset": offset, "Length": length}, name=name)


@fluid_checks("sequence_reshape", input=("float32", "float64", "int32", "int64"))
def sequence_reshape(input, new_dim):
    """Each sequence's values re-cut into rows of new_dim ([steps, D] -> [steps * D / new_dim, new_dim])."""
    return _one("sequence_reshape", {"X": input}, attrs={"new_dim": new_dim})


def _lod_op(helper, x, level_var, target_lod, append):
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x]} if level_var is None else {"X": [x], "Y": [level_var]}
    attrs = {"append": append} if level_var is not None else {"target_lod": list(target_lod), "append": append}
    helper.append_op("lod_reset", inputs, {"Out": [out]}, attrs)
    return out


def lod_reset(x, y=None, target_lod=None):
    """x's rows with a new LoD: y's LoD (y a LoDTensor), y's values as offsets (y a plain int
    tensor), or target_lod (offsets of one level, e.g. [0, 4, 6])."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "lod_reset")
    if y is not None:
        check_type(y, "y", Variable, "lod_reset")
        if y.lod_level == 0:
            check_variable_and_dtype(y, "y", ("int32",), "lod_reset")
    elif target_lod is not None:
        check_type(target_lod, "target_lod", (list, tuple), "lod_reset")
    helper = LayerHelper("lod_reset")
    if y is None and target_lod is None:
        raise ArgumentValueError(f"lod_reset layer '{helper.name}': give y or target_lod (offsets such as [0, 2, 5])")
    if y is None and not isinstance(target_lod, (list, tuple)):
        raise PeError(f"lod_reset layer '{helper.name}': target_lod must be a list of offsets, got {target_lod!r}")
    return _lod_op(helper, x, y, target_lod, False)


def lod_append(x, level):
    """x with one more LoD level below its own: level is offsets (a list, or an int tensor of them)
    into x's rows; x's last level, if any, must count level's sequences. Fluid's errors: x not a
    float32/float64/int32/int64 Variable, or a level tensor without LoD not int32: TypeError;
    level neither a list nor a Variable: ValueError."""
    helper = LayerHelper("lod_append")
    if not isinstance(level, (Variable, list, tuple)):
        raise ArgumentValueError(
            f"lod_append layer '{helper.name}': level must be a list of offsets or a Variable, got {level!r}"
        )
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "lod_append")
    if isinstance(level, Variable):
        if not level.lod_level:
            check_variable_and_dtype(level, "level", ("int32",), "lod_append")
        return _lod_op(helper, x, level, None, True)
    return _lod_op(helper, x, None, level, True)
