"""More indexing layers of Fluid 1.8's ``fluid.layers``, with its signatures: strided_slice, unbind,
scatter, gather_nd, argsort, unique, unique_with_counts, filter_by_instag. Bounds are lists of ints (Fluid's Variable
forms of strided_slice's starts/ends/strides are not supported)."""
__all__ = ["strided_slice", "unbind", "scatter", "gather_nd", "argsort", "unique", "unique_with_counts",
           "filter_by_instag"]
from ..dtypes import convert_dtype
from ..errors import PeError
from ..framework.variable import Variable
from .helper import LayerHelper
from .tensor import _as_list, _check_ints, _single


def strided_slice(input, axes, starts, ends, strides):
    """input[starts[i]:ends[i]:strides[i]] along each axes[i], bounds as Python's (an end of -1 with
    a negative stride runs through the first element)."""
    lists = {}
    for what, v in (("axes", axes), ("starts", starts), ("ends", ends), ("strides", strides)):
        if isinstance(v, Variable) or (isinstance(v, (list, tuple)) and any(isinstance(e, Variable) for e in v)):
            raise PeError(f"strided_slice: {what} holding Variables is not supported by pe; give lists of ints")
        lists[what] = _check_ints("strided_slice", what, _as_list(v))
    lists["infer_flags"] = [1] * len(lists["axes"])
    return _single("strided_slice", input, {"Input": [input]}, lists)


def unbind(input, axis=0):
    """The slices of ``input`` along ``axis`` (that dim removed), as a list."""
    shape = input.shape or ()
    if not -len(shape) <= axis < len(shape) or shape[axis] < 0:
        raise PeError(f"unbind of '{input.name}' {list(shape)}: axis={axis} must name a dim of known size")
    helper = LayerHelper("unbind", input=input)
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(shape[axis])]
    helper.append_op("unbind", {"X": [input]}, {"Out": outs}, {"axis": axis})
    return outs


def scatter(input, index, updates, name=None, overwrite=True):
    """``input`` with the rows ``index`` replaced by the rows of ``updates`` (overwrite: a repeated
    index keeps the last), or set to the sum of their rows (overwrite=False)."""
    return _single("scatter", input, {"X": [input], "Ids": [index], "Updates": [updates]},
                   {"overwrite": bool(overwrite)}, name=name)


def gather_nd(input, index, name=None):
    """out[i...] = input[index[i..., :]]: each row of index's last dim picks an element or a slice."""
    return _single("gather_nd", input, {"X": [input], "Index": [index]}, {}, name=name)


def argsort(input, axis=-1, descending=False, name=None):
    """(input sorted along ``axis``, the int64 indices it came from). As in Fluid 1.8, both outputs
    stop gradients."""
    helper = LayerHelper("argsort", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("argsort", {"X": [input]}, {"Out": [out], "Indices": [ids]},
                     {"axis": axis, "descending": bool(descending)})
    return out, ids


def _unique(op_type, x, dtype, slots):
    dtype = convert_dtype(dtype)
    helper = LayerHelper(op_type, x=x)
    outs = [helper.create_variable_for_type_inference(x.dtype if s == "Out" else dtype, stop_gradient=True)
            for s in slots]
    helper.append_op(op_type, {"X": [x]}, {s: [v] for s, v in zip(slots, outs)}, {"dtype": dtype})
    return tuple(outs)


def unique(x, dtype="int32"):
    """(the distinct values of 1-D ``x`` in the order they first appear, each element's position
    among them, of ``dtype``)."""
    return _unique("unique", x, dtype, ("Out", "Index"))


def unique_with_counts(x, dtype="int32"):
    """unique's two outputs and how many times each distinct value occurs."""
    return _unique("unique_with_counts", x, dtype, ("Out", "Index", "Count"))


def filter_by_instag(ins, ins_tag, filter_tag, is_lod, out_val_if_empty=0):
    """[the instances of ``ins`` (rows, or its sequences with ``is_lod``) whose tags (``ins_tag``,
    int64 with a LoD per instance) meet ``filter_tag``, with a LoD over them; their loss weights
    (float32 [kept, 1], ones)]. None kept: one row of ``out_val_if_empty`` and a weight of 0."""
    helper = LayerHelper("filter_by_instag", ins=ins)
    out = helper.create_variable_for_type_inference(ins.dtype)
    weight = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    index_map = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("filter_by_instag", {"Ins": [ins], "Ins_tag": [ins_tag], "Filter_tag": [filter_tag]},
                     {"Out": [out], "LossWeight": [weight], "IndexMap": [index_map]},
                     {"is_lod": bool(is_lod), "out_val_if_empty": int(out_val_if_empty)})
    return [out, weight]
