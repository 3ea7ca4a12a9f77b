"""The indexing family's rules, shared by the kernels of both devices: strided_slice's window, the shape a
slice keeps after decrease_axis, arg_max's and arg_min's output dtype; the meta rules of slice, strided_slice,
top_k, top_k_v2, arg_max, arg_min, where, where_index, argsort, unique, unique_consecutive, masked_select and their
gradients (structured kernels; slice's and strided_slice's CPU out-kernels in kernels/cpu/slicing.py, the others' in
kernels/cpu/indexing.py, selecting.py and unique_runs.py)."""

import math

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import PeError
from .manipulation import SLICE_END, strided_window
from .manipulation_run import check_slice_not_empty, slice_window
from .reduction import scalar_shape
from .structured import Meta


def _var_index_ends(attrs):
    """The ends, with Fluid's kernel's reading of ``var[i]`` for a Variable ``i`` holding -1 (its end,
    i + 1, is 0: start -1 and end 0 from tensors on a decreased axis take the last element)."""
    ends, flags, decrease = list(attrs["ends"]), attrs.get("infer_flags") or (), attrs.get("decrease_axis") or ()
    for i, (a, s, e, step) in enumerate(zip(attrs["axes"], attrs["starts"], ends, attrs["strides"])):
        if s == -1 and e == 0 and a in decrease and i < len(flags) and flags[i] == -1:
            ends[i] = SLICE_END if step > 0 else -2
    return ends


def strided_geometry(x_shape, attrs):
    """(first, sizes, steps) per dim, checked not to be empty."""
    first, sizes, steps = strided_window(
        tuple(x_shape), attrs["axes"], attrs["starts"], _var_index_ends(attrs), attrs["strides"]
    )
    if 0 in sizes:
        raise PeError(
            f"strided_slice of Input {list(x_shape)} with axes={list(attrs['axes'])}, "
            f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])}, "
            f"strides={list(attrs['strides'])} is empty"
        )
    return first, sizes, steps


def decreased(sizes, attrs, zero_dim=False):
    """The output shape: the sizes without the decrease_axis dims; none left: 0-D where the op says so
    (``zero_dim``: Paddle 2.x's ``x[0, 1]``), else Fluid's [1]."""
    drop = {d % len(sizes) for d in attrs["decrease_axis"]}
    return tuple(n for i, n in enumerate(sizes) if i not in drop) or scalar_shape(zero_dim)


def arg_dtype(attrs):
    """arg_max / arg_min's Out dtype: the dtype attribute (a VarType code or a name), any code < 0: int64."""
    dtype = attrs.get("dtype", -1)
    return np.dtype(np.int64 if isinstance(dtype, int) and dtype < 0 else convert_dtype(dtype))


def top_k_mismatch(k, x_shape):
    """Why top_k cannot take the ``k`` largest of X's last dim (k larger than it), or None."""
    if k > x_shape[-1]:
        return f"k={k} is larger than the last dim of X {list(x_shape)}"
    return None


# -- slice and strided_slice: meta rules (structured kernels, shapes/structured.py) -----------------------------
#
# Each reads Input's shape and dtype (the gradients': Out@GRAD's too) and the op's attributes (their bounds given
# by tensors, StartsTensor ...: the values replace the attributes before the rule runs, the ops' attr_tensors, so
# such a step decides on every run), never a value; a refusal is the one line the kernels always gave. Out is a
# window of Input: "view" where the window is all of Input (Meta.views: Input in Out's shape, no copy where Input
# is C-contiguous, as numpy's ascontiguousarray of the window gave it), else "window": the window copied into the
# buffer handed (args: the window's index, its shape where the buffer has another: decrease_axis's). A gradient is
# Out@GRAD placed in zeros of Input's shape and dtype ("place": args the window's index and shape), or Out@GRAD
# itself in Input's shape where the window is all of Input and the dtypes agree ("view").


def _window_meta(x, dtype, out, index, sizes, src):
    if tuple(sizes) == tuple(x.shape) and all(s.step in (None, 1) for s in index):
        return Meta({"Out": (out, dtype)}, "view", views={"Out": src})
    return Meta({"Out": (out, dtype)}, "window", args=(index, None if out == tuple(sizes) else tuple(sizes)))


def slice_meta(attrs, ins, facts):
    """slice: Out = Input[starts:ends] along ``axes``; decrease_axis drops sliced dims of size 1 (none left: [1],
    0-D where the op says so, ``facts.zero_dim``); a 0-D Input's window is [1] (numpy's ascontiguousarray's)."""
    x = ins["Input"]
    shape = tuple(x.shape)
    starts, sizes = slice_window(shape, attrs)
    got = tuple(sizes) if shape else (1,)
    check_slice_not_empty(shape, got, attrs)
    out = decreased(got, attrs, facts.zero_dim) if attrs["decrease_axis"] else got
    index = tuple(slice(s, s + n) for s, n in zip(starts, sizes))
    return _window_meta(x, x.dtype, out, index, sizes, "Input")


def strided_slice_meta(attrs, ins, facts):
    """strided_slice: Out = Input[starts:ends:strides] along ``axes`` (an empty window refused), decrease_axis as
    slice's."""
    x = ins["Input"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    out = decreased(sizes, attrs, facts.zero_dim)
    return _window_meta(x, x.dtype, out, strided_index(first, sizes, steps), sizes, "Input")


def strided_index(first, sizes, steps):
    """strided_slice's window as numpy's index: one slice per dim."""
    return tuple(slice(f, f + n * s if f + n * s >= 0 else None, s) for f, n, s in zip(first, sizes, steps))


def _placed(x, dout, index, sizes):
    shape, dtype = tuple(x.shape), x.dtype
    if tuple(sizes) == shape and all(s.step in (None, 1) for s in index) and dout.dtype == dtype:
        return Meta({"Input@GRAD": (shape, dtype)}, "view", views={"Input@GRAD": "Out@GRAD"})
    return Meta({"Input@GRAD": (shape, dtype)}, "place", args=(index, tuple(sizes)))


def slice_grad_meta(attrs, ins, facts):
    """slice_grad: Input@GRAD of Input's shape and dtype, Out@GRAD in slice's window, zeros elsewhere."""
    x = ins["Input"]
    starts, sizes = slice_window(tuple(x.shape), attrs)
    return _placed(x, ins["Out@GRAD"], tuple(slice(s, s + n) for s, n in zip(starts, sizes)), sizes)


def strided_slice_grad_meta(attrs, ins, facts):
    """strided_slice_grad: Input@GRAD of Input's shape and dtype, Out@GRAD in the window, zeros elsewhere."""
    x = ins["Input"]
    first, sizes, steps = strided_geometry(x.shape, attrs)
    return _placed(x, ins["Out@GRAD"], strided_index(first, sizes, steps), sizes)


# -- the meta rules of top_k, top_k_v2, arg_max and arg_min and their gradients, structured kernels
# (shapes/structured.py; their CPU out-kernels: kernels/cpu/indexing.py, kernels/cpu/selecting.py)

TOP_K_BY_ROWS = 4  # top_k takes the k best of a row without sorting it whole where k * this < the row's length
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def top_k_meta(attrs, ins, facts):
    """Fluid's top_k (along the last dim): Out (X's dtype) and Indices (int64) [..., k], refused where k is larger
    than the last dim (the one line as ever); the variant that finds the indices: "argmax" (k = 1), "rows" (a
    float row 4k wider than k: a numba loop a row, _top_k_loops.py), "partitioned" (another dtype's: a
    partition, then the candidates sorted), "sort" (a stable sort of -X; fresh: the arrays numpy makes)."""
    x, k = ins["X"], attrs["k"]
    if error := top_k_mismatch(k, x.shape):
        raise ValueError(error)
    shape = tuple(x.shape[:-1]) + (k,)
    outputs = {"Out": (shape, x.dtype), "Indices": (shape, np.dtype(np.int64))}
    if k == 1:
        return Meta(outputs, "argmax")
    if TOP_K_BY_ROWS * k < x.shape[-1]:
        return Meta(outputs, "rows") if x.dtype in _FLOATS else Meta(outputs, "partitioned", fresh=True)
    return Meta(outputs, "sort", fresh=True)


def top_k_grad_meta(attrs, ins, facts):
    """top_k_grad's and top_k_v2_grad's X@GRAD: X's shape, Out@GRAD's dtype; "put" (Out@GRAD at Indices)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "put")


def top_k_v2_meta(attrs, ins, facts):
    """top_k_v2 (along ``axis``, in the order of Paddle's CPU kernel): Out (X's dtype) and Indices (int64) of X's
    shape with k along the axis (a 0-D X: 0-D); "paddle" (fresh: the arrays numpy makes)."""
    x, k = ins["X"], int(attrs["k"])
    shape = list(x.shape)
    if shape:
        axis = attrs["axis"] % len(shape)
        if k > shape[axis]:  # (a K tensor's: its shape inference refuses an attribute's)
            raise PeError(f"top_k_v2: k={k} must lie in [0, {shape[axis]}] (X {shape} along axis {axis})")
        shape[axis] = k
    outputs = {"Out": (tuple(shape), x.dtype), "Indices": (tuple(shape), np.dtype(np.int64))}
    return Meta(outputs, "paddle", fresh=True)


def flat_arg_shape(x_shape, keepdims, zero_dim):
    """The shape of arg_max's / arg_min's Out over all of X (``flatten``): in a Paddle 2.x program (``zero_dim``,
    Paddle 2.6's ArgMinMaxInferMeta) 0-D, or a 1 for each of X's dims with ``keepdims``; else [1] (Fluid's, and
    Paddle 2.0-2.4's)."""
    if not zero_dim:
        return (1,)
    return (1,) * len(x_shape) if keepdims else ()


def arg_meta(attrs, ins, facts):
    """arg_max's and arg_min's Out (its dtype: ``arg_dtype``) and variant: "flatten" (over all of X: ``flat_arg_shape``),
    "zero" (a 0-D X: index 0, 0-D, [1] with keepdims: Paddle 2.6's), "axis" (numpy's argmax/argmin along the
    axis, ``args``, into an int Out), "cast" (into another dtype: fresh, numpy's astype)."""
    x, dtype = ins["X"], arg_dtype(attrs)
    if attrs["flatten"]:
        return Meta({"Out": (flat_arg_shape(x.shape, attrs["keepdims"], facts.zero_dim), dtype)}, "flatten")
    if not len(x.shape):
        return Meta({"Out": ((1,) if attrs["keepdims"] else (), dtype)}, "zero")
    axis = int(attrs["axis"]) % len(x.shape)  # (a LONG, which Fluid truncates: the registry does when appending)
    shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape) if attrs["keepdims"] or i != axis)
    return Meta(
        {"Out": (shape, dtype)}, "axis" if dtype.kind in "iu" else "cast", args=(axis,), fresh=dtype.kind not in "iu"
    )


# -- where, where_index, argsort and unique: meta rules (their CPU out-kernels: kernels/cpu/indexing.py) -----------


def condition_rows(cond_shape, rank):
    """Condition's shape as [leading dims] where it is 1 along a run of trailing dims of the output (rank ``rank``)
    and has at least one leading dim; else None."""
    dims = (1,) * (rank - len(cond_shape)) + tuple(cond_shape)
    lead = len(dims)
    while lead and dims[lead - 1] == 1:
        lead -= 1
    if lead == 0 or lead == rank:
        return None
    return dims[:lead]


def where_meta(attrs, ins, facts):
    """where's Out: Condition, X and Y broadcast, numpy's result dtype of X and Y. "rows" where Condition is
    constant over a run of trailing dims (a beam search's finished beams over the vocabulary: Y copied into Out,
    then X's rows where Condition holds; args: Condition's leading dims); else "where" (numpy's where, fresh)."""
    c, x, y = ins["Condition"], ins["X"], ins["Y"]
    dtype = np.result_type(x.dtype, y.dtype)
    if tuple(c.shape) == tuple(x.shape) == tuple(y.shape):
        return Meta({"Out": (tuple(x.shape), dtype)}, "where", fresh=True)
    shape = np.broadcast_shapes(tuple(c.shape), tuple(x.shape), tuple(y.shape))
    rows = condition_rows(c.shape, len(shape))
    if rows is None:
        return Meta({"Out": (shape, dtype)}, "where", fresh=True)
    return Meta({"Out": (shape, dtype)}, "rows", args=(rows,))


def where_grad_meta(attrs, ins, facts):
    """where_grad's X@GRAD and Y@GRAD: Out@GRAD where (not) Condition, summed to X's (Y's) shape where it is
    given (else Condition and Out@GRAD broadcast), Out@GRAD's dtype; "where" (fresh: numpy's where, its sums)."""
    c, dout = ins["Condition"], ins["Out@GRAD"]
    full = np.broadcast_shapes(tuple(c.shape), tuple(dout.shape))
    outputs = {}
    for slot in ("X", "Y"):
        given = ins.get(slot)
        outputs[slot + "@GRAD"] = (full if given is None else tuple(given.shape), dout.dtype)
    return Meta(outputs, "where", fresh=True)


def where_index_meta(attrs, ins, facts):
    """where_index's Out: int64 [true elements (their count: Condition's values, -1), Condition's rank]; "argwhere"
    (fresh: numpy's argwhere)."""
    return Meta({"Out": ((-1, len(ins["Condition"].shape)), np.dtype(np.int64))}, "argwhere", fresh=True)


def argsort_meta(attrs, ins, facts):
    """argsort's Out (X's shape and dtype) and Indices (int64): "scalar" (a 0-D X: itself at index 0, Paddle
    2.6's), else "sort" (a stable sort, ties in the order of Paddle's CPU std::sort); fresh: numpy's arrays."""
    x = ins["X"]
    shape = tuple(x.shape)
    outputs = {"Out": (shape, x.dtype), "Indices": (shape, np.dtype(np.int64))}
    return Meta(outputs, "sort" if shape else "scalar", args=(attrs["axis"] % max(len(shape), 1),), fresh=True)


def argsort_grad_meta(attrs, ins, facts):
    """argsort_grad's X@GRAD (X's shape and dtype): "put" (Out@GRAD put at Indices along the axis, args; zeros
    elsewhere), "scalar" (a 0-D X: Out@GRAD cast)."""
    x = ins["X"]
    shape = tuple(x.shape)
    variant = "put" if shape else "scalar"
    return Meta({"X@GRAD": (shape, x.dtype)}, variant, args=(attrs["axis"] % max(len(shape), 1),))


def unique_meta(attrs, ins, facts):
    """unique's and unique_with_counts' outputs, their lengths the count of distinct values (-1): Fluid's form
    ("first": Out in the order values first appear, Index, Count) or Paddle 2.x's ("sorted", is_sorted: Out
    ascending, Indices, Index, Counts); of ``dtype`` but Out; fresh: numpy's unique's arrays."""
    x, dtype = ins["X"], np.dtype(convert_dtype(attrs["dtype"]))
    shape = tuple(x.shape)
    if not attrs.get("is_sorted"):
        outputs = {"Out": ((-1,), x.dtype), "Index": ((math.prod(shape),), dtype), "Count": ((-1,), dtype)}
        return Meta(outputs, "first", fresh=True)
    axis = [a % len(shape) for a in attrs.get("axis") or ()]
    out = tuple(-1 if i == axis[0] else n for i, n in enumerate(shape)) if axis else (-1,)
    index = (shape[axis[0]],) if axis else (math.prod(shape),)
    outputs = {"Out": (out, x.dtype), "Indices": ((-1,), dtype), "Index": (index, dtype), "Counts": ((-1,), dtype)}
    return Meta(outputs, "sorted", fresh=True)


def _check_mask(op, ins):
    """Refuses a Mask that is not bool (numpy would gather X's rows at its values)."""
    dtype = np.dtype(ins["Mask"].dtype)
    if dtype != np.bool_:
        raise PeError(f"{op}: Mask is {dtype.name}; it must be bool")


def masked_select_meta(attrs, ins, facts):
    """masked_select's Y: X's dtype, as many elements as Mask (X and Mask broadcast) holds true (-1); "numpy" (fresh:
    numpy's boolean index)."""
    _check_mask("masked_select", ins)
    return Meta({"Y": ((-1,), np.dtype(ins["X"].dtype))}, "numpy", fresh=True)


def masked_select_grad_meta(attrs, ins, facts):
    """masked_select_grad's X@GRAD: X's shape and dtype; "numpy" (fresh)."""
    _check_mask("masked_select_grad", ins)
    x = ins["X"]
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "numpy", fresh=True)


def unique_consecutive_meta(attrs, ins, facts):
    """unique_consecutive's Out (X's dtype: X flattened, or X along axis, its length the runs' count: -1), Index (an
    element per element of X flattened, or per slice along axis) and Counts (-1), of ``dtype``; "numpy" (fresh)."""
    x, dtype = ins["X"], np.dtype(convert_dtype(attrs["dtype"]))
    shape = tuple(x.shape)
    if attrs["axis"]:
        if not -len(shape) <= attrs["axis"][0] < len(shape):  # (Paddle 2.6.2's kernel reads past X's dims)
            raise PeError(f"unique_consecutive: axis={list(attrs['axis'])} is no axis of X {list(shape)}")
        axis = attrs["axis"][0] % len(shape)
        out, index = tuple(-1 if i == axis else n for i, n in enumerate(shape)), (shape[axis],)
    else:
        out, index = (-1,), (math.prod(shape),)
    outputs = {"Out": (out, np.dtype(x.dtype)), "Index": (index, dtype), "Counts": ((-1,), dtype)}
    return Meta(outputs, "numpy", fresh=True)
