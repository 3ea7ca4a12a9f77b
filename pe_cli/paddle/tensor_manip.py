"""Paddle 2.x's top-level manipulation names (``paddle.reshape``, ``paddle.split``, ``paddle.gather``,
``paddle.roll``, ``paddle.shape``, ``paddle.scatter_nd``, ...) with 2.x's signatures and semantics, built from pe's own layers. Names that
need a dim's size (flatten, broadcast_to) need it known when the program is built."""

import numbers

import numpy as np

from .. import layers as L
from ..layers.manipulation import reshape_variable
from ..layers.manipulation import tiled
from ..layers.checks import check_type, check_variable_and_dtype
from ..base.errors import ArgumentValueError, FluidUnsupported, PeError, ShapeError
from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from ..base.dtypes import VarType
from ..layers.helper import LayerHelper, single as _single
from .alpha_keywords import renamed

__all__ = [
    "reshape",
    "reshape_",
    "transpose",
    "flatten",
    "concat",
    "split",
    "chunk",
    "stack",
    "unstack",
    "unbind",
    "squeeze",
    "squeeze_",
    "unsqueeze",
    "unsqueeze_",
    "expand",
    "broadcast_to",
    "expand_as",
    "tile",
    "flip",
    "roll",
    "slice",
    "strided_slice",
    "gather",
    "gather_nd",
    "index_select",
    "index_sample",
    "scatter",
    "scatter_",
    "shard_index",
    "multiplex",
    "cast",
    "numel",
    "rank",
    "is_empty",
    "is_tensor",
    "shape",
    "scatter_nd_add",
    "scatter_nd",
]


def _dims(x, axis):
    """``axis`` (an int, a list, or None for all) as non-negative ints."""
    rank = len(x.shape)
    if axis is None:
        return list(range(rank))
    return [int(a) % rank if rank else 0 for a in (axis if isinstance(axis, (list, tuple)) else [axis])]


def _zero_d_axes(x, axis, what):
    """Refuses an ``axis`` of a 0-D x other than 0 and -1 (Paddle 2.6 reads those as the one dim of a tensor of
    one element; a result along it stays 0-D)."""
    axes = [] if axis is None or len(x.shape) else axis if isinstance(axis, (list, tuple)) else [axis]
    for a in axes:
        if a not in (0, -1):
            raise PeError(f"paddle.{what}: axis {a} of the 0-D tensor '{x.name}': a 0-D tensor takes axis 0 or -1")


def no_axis_of_0d(x, what):
    """Refuses an axis of a 0-D x where Paddle 2.6 refuses one (its axis "in range [0, 0)")."""
    if isinstance(x, Variable) and not x.shape:
        raise PeError(f"paddle.{what}: '{x.name}' is 0-D; Paddle 2.6 takes no axis of a 0-D tensor here")


def _known(x, what, dims=None):
    shape = list(x.shape)
    for d in range(len(shape)) if dims is None else dims:
        if shape[d] < 0:
            raise PeError(
                f"paddle.{what} of '{x.name}' {shape}: pe needs dim {d}'s size known when the program is built"
            )
    return shape


def reshape(x, shape, name=None):
    """x with a new ``shape``: a list (0 keeps the dim, -1 is inferred) whose entries may be int Tensors of
    one value (reshape2's ShapeTensor list), or an int Tensor (its Shape input), read when the program runs."""
    return reshape_variable(x, shape if isinstance(shape, Variable) else list(shape), name=name)


reshape_ = reshape


def transpose(x, perm, name=None):
    return L.transpose(x, perm, name=name)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """x with dims start_axis..stop_axis merged into one."""
    rank = len(x.shape)
    if rank == 0:
        return reshape_variable(x, [1], name=name)
    start, stop = start_axis % rank, stop_axis % rank
    if start > stop:
        raise PeError(f"paddle.flatten: start_axis={start_axis} comes after stop_axis={stop_axis}")
    shape = list(x.shape)
    merged = 1
    for d in shape[start : stop + 1]:
        merged = -1 if d < 0 or merged < 0 else merged * d
    new = [0] * start + [merged] + shape[stop + 1 :]
    if new.count(-1) + sum(1 for d in shape[stop + 1 :] if d < 0) > 1 or any(d < 0 for d in shape[stop + 1 :]):
        raise PeError(f"paddle.flatten of '{x.name}' {shape}: pe needs the sizes after stop_axis known")
    return reshape_variable(x, new, name=name)


def tensor_array_to_tensor(input, axis=1, use_stack=False, name=None):
    """(the items of the tensor array ``input`` joined, or stacked with ``use_stack``, along ``axis``;
    each item's size along it): Paddle 2.6's paddle.tensor.manipulation.tensor_array_to_tensor."""
    return L.tensor_array_to_tensor(input, axis=axis, name=name, use_stack=use_stack)


# Paddle 2.6's paddle.concat checks these (its list spells uint8 'unit8', so uint8 is refused).
_CONCAT_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64", "int8", "complex64", "complex128")


def concat(x, axis=0, name=None):
    """The tensors of the list ``x`` joined along ``axis``; a tensor array's items joined as Paddle
    2.6 does (its tensor_array_to_tensor op)."""
    if isinstance(x, Variable) and x.type == VarType.LOD_TENSOR_ARRAY:
        return L.tensor_array_to_tensor(x, axis=axis, name=name)[0]
    inputs = [x] if isinstance(x, Variable) else list(x)
    for i, item in enumerate(inputs):
        check_variable_and_dtype(item, f"input[{i}]", _CONCAT_DTYPES, "concat")
        if item.dtype != inputs[0].dtype:
            raise TypeError("All the Tensors in the input must have the same data type.")
    return L.concat(inputs, axis=axis, name=name)


@renamed(input="x", dim="axis")
def split(x, num_or_sections, axis=0, name=None):
    """The list of parts of x along ``axis``: ``num_or_sections`` equal ones (an int) or of the
    listed sizes (one may be -1)."""
    return L.split(x, num_or_sections, dim=axis, name=name)


def chunk(x, chunks, axis=0, name=None):
    return split(x, int(chunks), axis=axis, name=name)


def stack(x, axis=0, name=None):
    """The tensors of the list x stacked along a new dim ``axis``; one Tensor is a list of one (Paddle's)."""
    return L.stack(list(x) if isinstance(x, (list, tuple)) else [x], axis=axis, name=name)


def unbind(input, axis=0):
    return L.unbind(input, axis=axis)


def unstack(x, axis=0, num=None):
    """The ``num`` slices of x along ``axis``, with Paddle 2.6's checks of both (a dim of unknown size takes any
    num: Paddle compares it with -1)."""
    if not -len(x.shape) <= axis < len(x.shape):
        raise ArgumentValueError(f"`axis` must be in the range [-{len(x.shape)}, {len(x.shape)})")
    if num is not None and x.shape[axis] >= 0 and not 0 <= num <= x.shape[axis]:
        raise ArgumentValueError(f"`num` must be in the range [0, {x.shape[axis]})")
    return L.unstack(x, axis=axis, num=num)


@renamed(out=True, input="x", axes="axis")
def squeeze(x, axis=None, name=None):
    """x without the dims of size 1 listed in ``axis`` (None: all of them); a listed dim of
    another size stays, as in Paddle 2.x."""
    if isinstance(axis, Variable) or (isinstance(axis, (list, tuple)) and any(isinstance(a, Variable) for a in axis)):
        raise FluidUnsupported("paddle.squeeze(axis=Tensor)", "pe takes axis as an int, a list of ints or None")
    _zero_d_axes(x, axis, "squeeze")
    dims = [d for d in _dims(x, axis) if x.shape[d] == 1 or (axis is not None and x.shape[d] < 0)] if x.shape else []
    if not dims:  # (nothing to drop, a 0-D x too: a new Variable all the same, as Paddle 2.6's squeeze2 gives,
        return L.assign(x)  # so that setting its stop_gradient or assigning into it leaves x alone)
    helper = LayerHelper("squeeze", x=x, name=name)  # Paddle 2.6's squeeze2 (Out, XShape), of any dtype
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("squeeze2", {"X": [x]}, {"Out": [out], "XShape": [xshape]}, {"axes": dims})
    return out


@renamed(out=True, input="x", axes="axis")
def unsqueeze(x, axis, name=None):
    return L.unsqueeze(x, list(axis) if isinstance(axis, (list, tuple)) else axis, name=name)


squeeze_, unsqueeze_ = squeeze, unsqueeze


def broadcast_to(x, shape, name=None):
    """x repeated to ``shape`` (numpy's broadcasting: dims of size 1 grow, -1 keeps one): a list of
    ints and int Tensors, or one int Tensor holding the list (its values known at run time)."""
    check_variable_and_dtype(x, "x", ("bool", "float16", "float32", "float64", "int32", "int64"), "broadcast_to")
    check_type(shape, "shape", (list, tuple, Variable), "broadcast_to")
    if x.dtype == "bool" and not x.stop_gradient:
        raise ValueError(
            "When the data type of input 'x' for broadcast_to is bool, you must set its stop_gradient "
            "to be True by some_var.stop_gradient = True, supporting some_var as the input."
        )
    return _broadcast(x, shape, name)


def _broadcast(x, shape, name=None):
    """broadcast_to without Paddle's argument checks, for pe's own functions (a bool mask they make)."""
    xs = list(x.shape)
    if isinstance(shape, Variable) or any(isinstance(s, Variable) for s in shape):
        return _expand_at_run_time(x, shape, name)
    shape = list(shape)
    if len(shape) < len(xs):
        raise PeError(f"paddle.broadcast_to: shape {shape} has fewer dims than x {xs}")
    if len(shape) > len(xs):
        x = L.unsqueeze(x, list(range(len(shape) - len(xs))))
        xs = [1] * (len(shape) - len(xs)) + xs
    times = []
    for have, want in zip(xs, shape):
        if want == -1 or want == have:
            times.append(1)
        elif have == 1:
            times.append(int(want))
        else:
            raise PeError(f"paddle.broadcast_to: x {list(x.shape)} cannot broadcast to {shape}")
    return tiled(x, times, name=name)


def _expand_at_run_time(x, shape, name):
    """Paddle 2.6's expand_v2 for a shape known at run time: one int Tensor holding it (Shape), or a list
    whose Tensor items (-2 in the attribute) and ints give one tensor per dim (expand_shapes_tensor); a -1
    keeps x's dim (the op's kernel reads them)."""
    if isinstance(shape, Variable):
        if len(shape.shape) != 1 or shape.shape[0] < 0:
            raise PeError(f"paddle.broadcast_to: a shape Tensor must be 1-D of known length, got {list(shape.shape)}")
        shape.stop_gradient = True
        return _single("expand_v2", x, {"X": [x], "Shape": [shape]}, {"shape": [-1] * shape.shape[0]}, name=name)
    items = [s if isinstance(s, Variable) else L.fill_constant([1], "int32", int(s)) for s in shape]
    attrs = {"shape": [-2 if isinstance(s, Variable) else int(s) for s in shape]}
    return _single("expand_v2", x, {"X": [x], "expand_shapes_tensor": items}, attrs, name=name)


expand = broadcast_to


def expand_as(x, y, name=None):
    return broadcast_to(x, y.shape, name=name)


def tile(x, repeat_times, name=None):
    """x repeated ``repeat_times[i]`` times along each dim i (x gains leading dims of size 1 when
    repeat_times is longer): the tile op; the times may be a list holding int Tensors, or one Tensor."""
    return tiled(
        x, repeat_times if isinstance(repeat_times, Variable) else list(repeat_times), name=name, op_type="tile"
    )


def flip(x, axis, name=None):
    no_axis_of_0d(x, "flip")
    return L.flip(x, list(axis) if isinstance(axis, (list, tuple)) else [axis], name=name)


def roll(x, shifts, axis=None, name=None):
    """x rolled ``shifts`` places along ``axis`` (None: over the flattened x, shape kept). ``shifts`` an int
    Tensor: the roll op's ShiftsTensor, read when the program runs, as Paddle 2.6 builds it."""
    if axis is not None:
        no_axis_of_0d(x, "roll")
    if not isinstance(shifts, Variable):
        return L.roll(x, shifts, axis)
    check_variable_and_dtype(shifts, "shifts", ("int32", "int64"), "roll")
    axis = [] if axis is None else [int(axis)] if isinstance(axis, numbers.Integral) else [int(a) for a in axis]
    helper = LayerHelper("roll", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("roll", {"X": [x], "ShiftsTensor": [shifts]}, {"Out": [out]}, {"dims": axis})
    return out


def slice(input, axes, starts, ends):  # noqa: A001
    return L.slice(input, axes=list(axes), starts=list(starts), ends=list(ends))


def strided_slice(x, axes, starts, ends, strides, name=None):
    return L.strided_slice(x, axes, starts, ends, strides)


def _to_axis0(x, axis):
    perm = [axis] + [d for d in range(len(x.shape)) if d != axis]
    return perm, (x if axis == 0 else L.transpose(x, perm))


def gather(x, index, axis=None, name=None):
    """The slices x[index[i]] along ``axis`` (None or 0: the first dim; an int Tensor: gather's Axis input,
    read when the program runs). A 0-D index takes one slice, without the axis, as Paddle 2.6's."""
    if isinstance(index, Variable) and len(index.shape) == 0 and not isinstance(axis, Variable):
        axis = 0 if axis is None else int(axis) % len(x.shape)
        return L.squeeze(gather(x, reshape_variable(index, [1]), axis), [axis], name=name)
    if isinstance(index, Variable) and len(index.shape) == 2 and index.shape[1] == 1:
        index = reshape_variable(index, [-1])
    if isinstance(axis, Variable):
        check_variable_and_dtype(axis, "axis", ("int32", "int64"), "gather")
        return _single("gather", x, {"X": [x], "Index": [index], "Axis": [axis]}, {"overwrite": False}, name=name)
    axis = 0 if axis is None else int(axis) % len(x.shape)
    if axis == 0:
        return L.gather(x, index)
    perm, moved = _to_axis0(x, axis)
    back = [perm.index(d) for d in range(len(perm))]
    return L.transpose(L.gather(moved, index), back, name=name)


def index_select(x, index, axis=0, name=None):
    """The slices of x along ``axis`` at ``index``, a 1-D int tensor (or [N, 1]); another index is a
    ValueError, as Paddle's shape inference raises."""
    no_axis_of_0d(x, "index_select")
    shape = list(index.shape) if isinstance(index, Variable) else None
    if shape is not None and not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
        raise ShapeError(f"paddle.index_select: index {shape} must be a 1-D Tensor (or [N, 1])")
    if shape is not None and len(shape) == 2:
        index = reshape_variable(index, [-1])
    return L.index_select(x, index, dim=axis)


def gather_nd(x, index, name=None):
    return L.gather_nd(x, index, name=name)


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for x [N, D] and index [N, K]."""
    return L.index_sample(x, index)


def scatter(x, index, updates, overwrite=True, name=None):
    return L.scatter(x, index, updates, name=name, overwrite=overwrite)


scatter_ = scatter


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """input % shard_size where input // shard_size == shard_id, else ``ignore_value``
    (shard_size = ceil(index_num / nshards))."""
    return L.shard_index(input, index_num, nshards, shard_id, ignore_value)


def multiplex(inputs, index, name=None):
    """out[i] = inputs[index[i]][i]: row i taken from the input ``index[i]`` names."""
    return L.multiplex(list(inputs), index)


_CAST_FROM = ("bool", "float16", "float32", "float64", "int16", "int32", "int64", "uint8", "uint16")


def cast(x, dtype):
    """x converted to ``dtype``: Paddle 2.6's checks (x of any of its numeric dtypes but int8; any dtype out)."""
    check_variable_and_dtype(x, "x", _CAST_FROM, "cast")
    dtype = convert_dtype(dtype)
    return _single("cast", x, {"X": [x]}, {"in_dtype": x.dtype, "out_dtype": dtype}, dtype=dtype)


def numel(x, name=None):
    return L.size(x)


def rank(input):
    """The number of dims of ``input``, an int32 Tensor: 0-D, as Paddle 2.6's."""
    return L.rank(input, zero_dim=True)


def is_empty(x, name=None):
    return L.is_empty(x)


def is_tensor(x):
    """Whether x is a Tensor (in pe's static graphs: a Variable)."""
    return isinstance(x, Variable)


def shape(input):
    """The dims of ``input`` at run time: an int32 Tensor [rank]."""
    return L.shape(input)


def scatter_nd_add(x, index, updates, name=None):
    """x with each updates[i...] added at x[index[i..., :]] (repeated indices add up); index's last
    dim k picks an element (k = rank of x) or a slice of x."""
    return L.scatter_nd_add(x, index, updates, name=name)


def scatter_nd(index, updates, shape, name=None):
    """zeros of ``shape`` with updates scattered (added) at ``index``: scatter_nd_add on zeros."""
    return L.scatter_nd(index, updates, shape, name=name)
