"""Indexing, search and sort layers with Fluid 1.x signatures: gather, gather_nd, scatter,
one_hot, where, argsort, unique, unique_with_counts, topk, argmax, argmin; and Fluid 1.8's names from
paddle.tensor: index_select, index_sample, scatter_nd_add, shard_index and multiplex (each its op,
ops/gather_scatter.py), nonzero (where) and scatter_nd (scatter_nd_add on zeros)."""

__all__ = [
    "scatter",
    "gather_nd",
    "argsort",
    "unique",
    "unique_with_counts",
    "gather",
    "one_hot",
    "where",
    "topk",
    "argmax",
    "argmin",
    "index_select",
    "index_sample",
    "nonzero",
    "scatter_nd",
    "scatter_nd_add",
    "shard_index",
    "multiplex",
]
import numbers

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError
from ..framework.variable import Variable
from .checks import NUMBERS, check_type, check_variable_and_dtype
from .creation import zeros
from .helper import LayerHelper, single
from .manipulation import cast, reshape, slice


def scatter(input, index, updates, name=None, overwrite=True):
    """``input`` with the rows ``index`` replaced by the rows of ``updates`` (overwrite: a repeated
    index keeps the last), or set to the sum of their rows (overwrite=False)."""
    return single(
        "scatter",
        input,
        {"X": [input], "Ids": [index], "Updates": [updates]},
        {"overwrite": bool(overwrite)},
        name=name,
    )


def gather_nd(input, index, name=None):
    """out[i...] = input[index[i..., :]]: each row of index's last dim picks an element or a slice."""
    return single("gather_nd", input, {"X": [input], "Index": [index]}, {}, name=name)


def argsort(input, axis=-1, descending=False, name=None):
    """(input sorted along ``axis``, the int64 indices it came from). As in Fluid 1.8, both outputs
    stop gradients. A non-Variable input is Fluid's TypeError."""
    check_variable_and_dtype(
        input, "input", ("float16", "float32", "float64", "int16", "int32", "int64", "uint8"), "argsort"
    )
    helper = LayerHelper("argsort", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "argsort", {"X": [input]}, {"Out": [out], "Indices": [ids]}, {"axis": axis, "descending": bool(descending)}
    )
    return out, ids


def _unique(op_type, x, dtype, slots):
    dtype = convert_dtype(dtype)
    helper = LayerHelper(op_type, x=x)
    outs = [
        helper.create_variable_for_type_inference(x.dtype if s == "Out" else dtype, stop_gradient=True) for s in slots
    ]
    helper.append_op(op_type, {"X": [x]}, {s: [v] for s, v in zip(slots, outs)}, {"dtype": dtype})
    return tuple(outs)


def unique(x, dtype="int32"):
    """(the distinct values of 1-D ``x`` in the order they first appear, each element's position
    among them, of ``dtype``)."""
    check_variable_and_dtype(x, "x", NUMBERS[1:], "unique")
    return _unique("unique", x, dtype, ("Out", "Index"))


def unique_with_counts(x, dtype="int32"):
    """unique's two outputs and how many times each distinct value occurs."""
    check_variable_and_dtype(x, "x", NUMBERS[1:], "unique_with_counts")
    return _unique("unique_with_counts", x, dtype, ("Out", "Index", "Count"))


def gather(input, index, overwrite=True):
    """Rows of ``input`` picked by the int32/int64 ``index`` (1-D or [N, 1]). The gradient adds into
    the picked rows, repeated rows accumulating."""
    helper = LayerHelper("gather", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("gather", {"X": [input], "Index": [index]}, {"Out": [out]}, {"overwrite": overwrite})
    return out


def one_hot(input, depth, allow_out_of_range=False):
    """int ids [N, 1] -> float32 [N, depth] one-hot rows. No gradient. ``depth``: an int, or an int
    Variable of one value (Fluid 1.8's depth_tensor)."""
    check_variable_and_dtype(input, "input", ("int32", "int64"), "one_hot")  # Fluid 1.8's TypeErrors
    check_type(depth, "depth", (numbers.Integral, Variable), "one_hot")
    helper = LayerHelper("one_hot", input=input)
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    inputs, attrs = {"X": [input]}, {"depth": depth, "allow_out_of_range": allow_out_of_range}
    if isinstance(depth, Variable):
        depth.stop_gradient = True
        inputs["depth_tensor"], attrs["depth"] = [depth], None
    helper.append_op("one_hot", inputs, {"Out": [out]}, attrs)
    return out


def where(condition):
    """The int64 coordinates [N, rank] of the true elements of ``condition`` (Fluid 1.8's where)."""
    check_variable_and_dtype(condition, "condition", ("bool",), "where")
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
    inputs, attrs = {"X": [input]}, {"k": k}
    if isinstance(k, Variable):  # Fluid 1.8's: the op's K input gives k at run time
        inputs["K"], attrs = [k], {}
    helper.append_op("top_k", inputs, {"Out": [values], "Indices": [indices]}, attrs)
    values.stop_gradient = True
    return values, indices


def _arg(op_type, x, axis):
    check_variable_and_dtype(
        x,
        "x",
        ("float32", "float64", "uint8", "int16", "int32", "int64"),  # Fluid 1.8's
        op_type.replace("_", ""),
    )
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


_INDICES = ("int32", "int64")


def index_select(input, index, dim=0):
    """The slices of ``input`` along ``dim`` picked by the 1-D int ``index`` (Fluid 1.8's index_select op)."""
    check_variable_and_dtype(input, "input", NUMBERS, "index_select")
    check_variable_and_dtype(index, "index", _INDICES, "index_select")
    return single("index_select", input, {"X": [input], "Index": [index]}, {"dim": int(dim)})


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for x [N, D] and index [N, K] (the index_sample op)."""
    check_variable_and_dtype(x, "x", NUMBERS, "index_sample")
    check_variable_and_dtype(index, "index", _INDICES, "index_sample")
    return single("index_sample", x, {"X": [x], "Index": [index]}, {})


def nonzero(input, as_tuple=False):
    """The int64 coordinates [N, rank] of ``input``'s nonzero elements; with ``as_tuple``, one [N, 1]
    tensor per dim."""
    coords = where(input if input.dtype == "bool" else cast(input, "bool"))
    if not as_tuple:
        return coords
    return tuple(slice(coords, [1], [i], [i + 1]) for i in range(len(input.shape)))


def scatter_nd_add(ref, index, updates, name=None):
    """``ref`` with each updates[i...] added at ref[index[i..., :]] (repeated indices add up); index's
    last dim k picks an element (k = rank of ref) or a slice (the scatter_nd_add op)."""
    if ref.dtype != updates.dtype:
        raise ArgumentValueError("ref and updates must have same data type.")
    check_variable_and_dtype(index, "index", _INDICES, "scatter_nd_add")
    return single("scatter_nd_add", ref, {"X": [ref], "Index": [index], "Updates": [updates]}, {}, name=name)


def scatter_nd(index, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` scattered (added) at ``index``: scatter_nd_add on zeros."""
    return scatter_nd_add(zeros([int(d) for d in shape], updates.dtype), index, updates, name=name)


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """input % shard_size where input // shard_size == shard_id, else ``ignore_value``
    (shard_size = ceil(index_num / nshards)): the shard_index op."""
    check_variable_and_dtype(input, "input", _INDICES, "shard_index")
    if not 0 <= shard_id < nshards:
        raise ArgumentValueError(f"shard_index: shard_id({shard_id}) should be in [0, {nshards})")
    attrs = {
        "index_num": int(index_num),
        "nshards": int(nshards),
        "shard_id": int(shard_id),
        "ignore_value": int(ignore_value),
    }
    return single("shard_index", input, {"X": [input]}, attrs, stop_gradient=True)


def multiplex(inputs, index):
    """out[i] = inputs[index[i]][i]: row i taken from the input that ``index[i]`` names (the multiplex op;
    a 1-D index, which Fluid refuses, is made a column first)."""
    check_type(inputs, "inputs", (list, tuple), "multiplex")
    if len(inputs) < 2:
        raise ArgumentValueError(f"multiplex: inputs should be a list of at least 2 Variables, got {len(inputs)}")
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, f"input[{i}]", NUMBERS, "multiplex")
    check_variable_and_dtype(index, "index", _INDICES, "multiplex")
    if len(index.shape) == 1:
        index = reshape(index, [-1, 1])
    return single("multiplex", inputs[0], {"X": list(inputs), "Ids": [index]}, {})
