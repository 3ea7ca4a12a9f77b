"""Fluid's ``split_lod_tensor`` and ``merge_lod_tensor``: the sequences of a LoD level (the rows of
a tensor without LoD) split in two by a bool mask, and merged back in the mask's order (what
``IfElse`` does to its inputs and outputs)."""

from ..framework.variable import Variable
from .helper import LayerHelper
from .checks import check_type

__all__ = ["split_lod_tensor", "merge_lod_tensor"]


def split_lod_tensor(input, mask, level=0):
    """(OutTrue, OutFalse): ``input``'s sequences of LoD level ``level`` where ``mask`` ([count, 1]
    bool) holds, and the others, each with its LoD."""
    check_type(input, "input", (Variable, list, tuple, type(None)), "fluid.layers.split_lod_tensor")
    check_type(mask, "mask", (Variable, list), "fluid.layers.split_lod_tensor")
    check_type(level, "level", int, "fluid.layers.split_lod_tensor")
    helper = LayerHelper("split_lod_tensor")
    out_true = helper.create_variable_for_type_inference(dtype=input.dtype)
    out_false = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op(
        "split_lod_tensor",
        {"X": [input], "Mask": [mask]},
        {"OutTrue": [out_true], "OutFalse": [out_false]},
        {"level": level},
    )
    return out_true, out_false


def merge_lod_tensor(in_true, in_false, x, mask, level=0):
    """The inverse of split_lod_tensor: each sequence from ``in_true`` where ``mask`` holds, else
    from ``in_false``, in the mask's order."""
    for value, what in ((x, "x"), (in_true, "in_true"), (in_false, "in_false")):
        check_type(value, what, (Variable, list, tuple, type(None)), "fluid.layers.merge_lod_tensor")
    check_type(mask, "mask", (Variable, list), "fluid.layers.merge_lod_tensor")
    helper = LayerHelper("merge_lod_tensor")
    out = helper.create_variable_for_type_inference(dtype=in_true.dtype)
    helper.append_op(
        "merge_lod_tensor",
        {"X": [x], "Mask": [mask], "InTrue": [in_true], "InFalse": [in_false]},
        {"Out": [out]},
        {"level": level},
    )
    return out
