"""``var[item]`` on a Variable. Fluid 1.8's ``Variable.__getitem__``: an int picks one index and drops
that dim; a slice ``a:b`` slices (``slice`` op), with a step ``strided_slice``; ``::-1`` reverses the
dim; ``:`` leaves it. A tuple indexes dims in order. An index or a bound may be a one-value int Variable
(read at run time, Fluid's StartsTensorList form). A bool Variable alone is a mask, as Paddle 2.x's: the
elements (or the trailing slices) where it is true, in order (where_index then gather_nd).

Paddle 2.6's additions (docs/COMPAT.md, "Indexing"): ``...`` stands for the ``:`` of the dims not
named; ``None`` adds a dim of 1 (unsqueeze2 after the slice, at Paddle 2.6's position: its index in
the item less the dropped dims before it); a list of ints, a numpy int array or (in a Paddle 2.x
program) an int Variable that is not 0-D gathers along its dim, and a bool Variable in a tuple masks
its dim: the gathered dims are moved to the front (transpose2), their indices stacked and read by
gather_nd, and the new dims go back where the indexed dims stood when those were adjacent and not
first (transpose2)."""

import numpy as np

from ..base.dtypes import VarType, convert_dtype
from ..base.errors import ArgumentTypeError
from ..shapes.manipulation import SLICE_END as _END
from ..framework.variable import Variable
from .control_flow import array_read
from .creation import assign_array_like, fill_constant
from .elementwise import scale
from .helper import single
from .indexing import gather_nd, where
from .manipulation import cast, stack, transpose, unsqueeze
from .slicing import bounds_given

_INTS = (VarType.INT32, VarType.INT64)


def _is_int(index):
    return isinstance(index, int) and not isinstance(index, bool)


def _array_index(index, dim):
    """A list or numpy array of ints (or a list of bools) as an index Variable."""
    array = np.asarray(index)
    if array.dtype == np.bool_ and isinstance(index, (list, tuple)) and array.ndim == 1:
        return assign_array_like(array)
    if array.size == 0 or array.dtype.kind not in "iu":
        raise ArgumentTypeError(
            f"Variable[...]: index {index!r} of dim {dim} is not supported by pe: a list or "
            f"numpy array index must hold ints"
        )
    if (array < 0).any():
        raise ArgumentTypeError(
            f"Variable[...]: the list index {index!r} of dim {dim} holds a negative int, "
            f"which Paddle 2.6's gather_nd refuses at run time"
        )
    return assign_array_like(array.astype(np.int64))


def _items(var, item):
    """The item as a list: numpy arrays and lists made index Variables, ``...`` spelled out."""
    items = []
    for dim, index in enumerate(item if isinstance(item, tuple) else (item,)):
        items.append(_array_index(index, dim) if isinstance(index, (list, tuple, np.ndarray)) else index)
    ellipses = [i for i, index in enumerate(items) if index is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("An index can only have a single ellipsis ('...')")
    if ellipses:
        at = ellipses[0]
        count = len(var.shape) - len(items) + sum(index is None for index in items) + 1
        items[at : at + 1] = [] if at == len(items) - 1 else [slice(None)] * count
    return items


def _is_gather(index, paddle2):
    """An index Variable that gathers along its dim (not a one-value index read at run time)."""
    if index.dtype == VarType.BOOL:
        return True
    if index.dtype not in _INTS:
        raise ArgumentTypeError(f"Variable[...]: an index Variable must be int32, int64 or bool, got {index.dtype}")
    return paddle2 and len(index.shape) != 0


def _slice_bounds(index, dim, bounds):
    start, stop, step = index.start, index.stop, index.step
    if start is None and stop is None and step is None:
        return
    if start is None and stop is None and step == -1:
        bounds["reverse"].append(dim)
        return
    for what, v in (("start", start), ("stop", stop), ("step", step)):
        if v is not None and not isinstance(v, (int, Variable)):
            raise ArgumentTypeError(f"Variable[...]: a slice's {what} must be an int, got {v!r}")
    back = _is_int(step) and step < 0  # a missing bound of a negative step: from the end, through index 0
    bounds["axes"].append(dim)
    bounds["starts"].append((_END if back else 0) if start is None else start)
    bounds["ends"].append((-1 if back else _END) if stop is None else stop)
    bounds["steps"].append(1 if step is None else step)


def _parts(items, paddle2):
    """The slice bounds, dropped dims, reversed dims and gathers [(dim left after the slice, index)]."""
    bounds = {key: [] for key in ("axes", "starts", "ends", "steps", "decrease", "reverse", "gathers")}
    for dim, index in enumerate(items):
        if isinstance(index, slice):
            _slice_bounds(index, dim, bounds)
        elif isinstance(index, Variable) and _is_gather(index, paddle2):
            bounds["gathers"].append((dim - len(bounds["decrease"]), index))
        elif isinstance(index, Variable) or _is_int(index):
            bounds["axes"].append(dim)
            bounds["starts"].append(index)
            bounds["ends"].append(
                scale(index, bias=1.0) if isinstance(index, Variable) else _END if index == -1 else index + 1
            )
            bounds["steps"].append(1)
            bounds["decrease"].append(dim)
        else:
            raise ArgumentTypeError(
                f"Variable[...]: index {index!r} of dim {dim} is not supported by pe: use ints, slices, "
                f"..., None, lists or numpy arrays of ints, and int or bool Variables"
            )
    return bounds


def _check_int_bounds(var, items):
    """An int index past a known dim's size raises IndexError, as Paddle's: ``a, b = var`` and
    ``for row in var`` stop there."""
    for dim, index in enumerate(items):
        if _is_int(index) and dim < len(var.shape) and var.shape[dim] >= 0 and index >= var.shape[dim]:
            raise IndexError(f"slice_item {index} at dim {dim} should be >= 0 and < x.shape[{dim}]: {var.shape[dim]}")


def getitem(var, item):
    """``var[item]`` (see the module's docstring); on a tensor array, an int or int Variable index
    reads that item (array_read)."""
    if var.type == VarType.LOD_TENSOR_ARRAY and (isinstance(item, Variable) or _is_int(item)):
        index = item if isinstance(item, Variable) else fill_constant([1], "int64", item)
        return array_read(var, index)
    if isinstance(item, Variable) and item.dtype == VarType.BOOL:
        return _masked(var, item)
    items, nones = _indices(var, item, "Variable[...]")
    parts = _parts(items, var.block.program._follows_paddle2)
    if parts["gathers"] and nones:
        raise ArgumentTypeError("Variable[...]: None beside a list, array or Variable index is not supported by pe")
    out = _sliced(var, parts)
    if nones:
        out = unsqueeze(out, [at - sum(d < at for d in parts["decrease"]) for at in nones])
    return _gathered(out, parts["gathers"]) if parts["gathers"] else out


def _sliced(var, parts):
    axes, steps, decrease, out = parts["axes"], parts["steps"], parts["decrease"], var
    if axes:
        strided = any(isinstance(s, Variable) or s != 1 for s in steps)
        bounds = dict({"starts": parts["starts"], "ends": parts["ends"]}, **({"strides": steps} if strided else {}))
        inputs, attrs = bounds_given("strided_slice" if strided else "slice", bounds, axes)
        out = single(
            "strided_slice" if strided else "slice", out, dict(inputs, Input=[out]), dict(attrs, decrease_axis=decrease)
        )
    if parts["reverse"]:
        kept = [d for d in range(len(var.shape)) if d not in decrease]
        out = single("reverse", out, {"X": [out]}, {"axis": [kept.index(d) for d in parts["reverse"]]})
    return out


def _gathered(out, gathers):
    """``out`` read by the gathers [(dim, index Variable)], as Paddle 2.6's advanced indexing."""
    dims = [dim for dim, _ in gathers]
    indices = [index for _, index in gathers]
    rank = max(len(index.shape) for index in indices)
    new_at = dims[0] if dims == list(range(dims[0], dims[0] + len(dims))) else 0
    perm = dims + [d for d in range(len(out.shape)) if d not in dims]
    moved = out if perm == list(range(len(out.shape))) else transpose(out, perm)
    if any(index.dtype == VarType.BOOL for index in indices):
        if len(indices) > 1 or len(indices[0].shape) != 1:
            raise ArgumentTypeError(
                "Variable[...]: a bool mask in a tuple is supported by pe as its only list, array or Variable "
                "index, and 1-D"
            )
        out = _masked(moved, indices[0])
    else:
        if len({tuple(index.shape) for index in indices}) > 1:
            shapes = [list(index.shape) for index in indices]
            raise ArgumentTypeError(
                f"Variable[...]: index arrays of shapes {shapes} (broadcast) are not supported by pe"
            )
        if len({index.dtype for index in indices}) > 1:  # Paddle 2.6's stack refuses them too
            raise ArgumentTypeError("Variable[...]: index arrays of different dtypes (int32 and int64)")
        index = stack(indices, axis=-1) if len(indices) > 1 else unsqueeze(indices[0], [-1])
        out = gather_nd(moved, index)
    if new_at:
        ndim = len(out.shape)
        out = transpose(out, [*range(rank, new_at + rank), *range(rank), *range(new_at + rank, ndim)])
    return out


def _masked(var, mask):
    """var[mask] for a bool ``mask`` over var's leading dims: [true count] + var's other dims."""
    lead, given = list(var.shape[: len(mask.shape)]), list(mask.shape)
    if len(given) > len(var.shape) or any(a >= 0 and b >= 0 and a != b for a, b in zip(lead, given)):
        raise IndexError(f"Variable[mask]: the bool mask {given} must match the leading dims of {list(var.shape)}")
    return gather_nd(var, where(mask))


def setitem(x, item, value):
    """``paddle.static.setitem(x, item, value)``: a new Variable, x with x[item] set to ``value`` (a number,
    numpy array or Variable, cast to x's dtype), by one set_value op as Paddle 2.6's; an item that
    gathers (a list, an array, an int Variable that is not 0-D, a mask: Paddle 2.6's index_put) is refused."""
    for dim, index in enumerate(item if isinstance(item, tuple) else (item,)):
        if isinstance(index, (list, tuple, np.ndarray)) or (isinstance(index, Variable) and _is_gather(index, True)):
            raise ArgumentTypeError(
                f"paddle.static.setitem: index {index!r} of dim {dim} gathers (Paddle 2.6's index_put), "
                f"which pe does not support: use ints, slices, ..., None and 0-D int Variables"
            )
    items, nones = _indices(x, item, "paddle.static.setitem")
    parts = _parts(items, True)
    for dim in parts["reverse"]:
        for key, bound in (("axes", dim), ("starts", _END), ("ends", -1), ("steps", -1)):
            parts[key].append(bound)
    attrs = {"axes": parts["axes"], "decrease_axes": parts["decrease"], "none_axes": nones, "dtype": x.dtype}
    inputs = {"Input": [x]}
    for key, slot in (("starts", "Starts"), ("ends", "Ends"), ("steps", "Steps")):
        if any(isinstance(v, Variable) for v in parts[key]):
            inputs[f"{slot}TensorList"] = [
                v if isinstance(v, Variable) else fill_constant([1], "int64", v) for v in parts[key]
            ]
            attrs[key] = []
        else:
            attrs[key] = parts[key]
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [cast(value, x.dtype)]
        attrs.update(values=[], shape=[])
    elif isinstance(value, (bool, int, float, np.ndarray)):
        array = np.asarray([value] if np.ndim(value) == 0 else value).astype(convert_dtype(x.dtype))
        attrs.update(values=array.ravel().tolist(), shape=list(array.shape))
    else:
        raise ArgumentTypeError(
            f"paddle.static.setitem: the value must be a number, numpy array or Variable, got {type(value).__name__}"
        )
    return single("set_value", x, inputs, attrs)


def refuse_setitem(var, item, value):
    """``var[item] = value``: Paddle 2.6's RuntimeError in a static program (its setitem builds a new
    Variable); Fluid 1.8's Variable had no item assignment."""
    if var.block.program._follows_paddle2:
        raise RuntimeError(
            "In static mode, the __setitem__ (looks like: x[indices] = values) should not be used. "
            "Please use x = paddle.static.setitem(x, indices, values)"
        )
    raise TypeError("'Variable' object does not support item assignment")


def _indices(var, item, what):
    """``item``'s indices of ``var``'s dims (``None`` taken out) and where each ``None`` stood; too many indices, or
    an int past a known dim, refused as Paddle's IndexError (``what`` names the call)."""
    items = _items(var, item)
    nones = [at for at, index in enumerate(items) if index is None]
    items = [index for index in items if index is not None]
    if len(items) > len(var.shape):
        raise IndexError(f"{what}: {len(items)} indices for the {len(var.shape)} dims of {list(var.shape)}")
    _check_int_bounds(var, items)
    return items, nones
