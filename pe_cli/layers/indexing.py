"""Indexing, search and sort layers with Fluid 1.x signatures: slice, gather, gather_nd, scatter,
one_hot, where, argsort, unique, unique_with_counts, topk, argmax, argmin."""
__all__ = ["scatter", "gather_nd", "argsort", "unique", "unique_with_counts", "slice", "gather", "one_hot",
           "where", "topk", "argmax", "argmin"]
from ..base.dtypes import convert_dtype
from .helper import LayerHelper, _single


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


def slice(input, axes, starts, ends):
    """input[starts[i]:ends[i]] along each axes[i]; bounds as in Python (negative from the end,
    clamped to the dim)."""
    helper = LayerHelper("slice", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("slice", {"Input": [input]}, {"Out": [out]},
                     {"axes": list(axes), "starts": list(starts), "ends": list(ends)})
    return out


def gather(input, index, overwrite=True):
    """Rows of ``input`` picked by the int32/int64 ``index`` (1-D or [N, 1]). The gradient adds into
    the picked rows, repeated rows accumulating."""
    helper = LayerHelper("gather", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("gather", {"X": [input], "Index": [index]}, {"Out": [out]}, {"overwrite": overwrite})
    return out


def one_hot(input, depth, allow_out_of_range=False):
    """int ids [N, 1] -> float32 [N, depth] one-hot rows. No gradient."""
    helper = LayerHelper("one_hot", input=input)
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    helper.append_op("one_hot", {"X": [input]}, {"Out": [out]},
                     {"depth": depth, "allow_out_of_range": allow_out_of_range})
    return out


def where(condition):
    """The int64 coordinates [N, rank] of the true elements of ``condition`` (Fluid 1.8's where)."""
    helper = LayerHelper("where_index", condition=condition)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("where_index", {"Condition": [condition]}, {"Out": [out]})
    out.stop_gradient = True
    return out


def topk(input, k, name=None):
    """(values, int64 indices) of the k largest entries along the last dim."""
    helper = LayerHelper("top_k", input=input, name=name)
    values = helper.create_variable_for_type_inference(input.dtype)
    indices = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("top_k", {"X": [input]}, {"Out": [values], "Indices": [indices]}, {"k": k})
    values.stop_gradient = True
    return values, indices


def _arg(op_type, x, axis):
    helper = LayerHelper(op_type, x=x)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(op_type, {"X": [x]}, {"Out": [out]}, {"axis": axis})
    return out


def argmax(x, axis=0):
    """int64 index of the largest value along ``axis`` (which is removed)."""
    return _arg("arg_max", x, axis)


def argmin(x, axis=0):
    """int64 index of the smallest value along ``axis`` (which is removed)."""
    return _arg("arg_min", x, axis)
