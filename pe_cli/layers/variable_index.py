"""``var[item]`` on a Variable, as Fluid 1.8's ``Variable.__getitem__``: an int picks one index and drops
that dim (all dims picked: shape [1]); a slice ``a:b`` slices (``slice`` op), with a step
``strided_slice``; ``::-1`` reverses the dim; ``:`` leaves it. A tuple indexes dims in order. An index or
a bound may be a one-value int Variable (read at run time, Fluid's StartsTensorList form). A bool Variable
alone is a mask, as Paddle 2.x's: the elements (or the trailing slices) where it is true, in order
(where_index then gather_nd)."""

from ..base.dtypes import VarType
from ..base.errors import ArgumentTypeError
from ..shapes.manipulation import SLICE_END as _END
from ..framework.variable import Variable
from .control_flow import array_read
from .creation import fill_constant
from .helper import single
from .indexing import gather_nd, where
from .slicing import bounds_given


def _parts(item):
    axes, starts, ends, steps, decrease, reverse = [], [], [], [], [], []
    for dim, index in enumerate(item if isinstance(item, tuple) else (item,)):
        if isinstance(index, slice):
            start, stop, step = index.start, index.stop, index.step
            if start is None and stop is None and step is None:
                continue
            if start is None and stop is None and step == -1:
                reverse.append(dim)
                continue
            for what, v in (("start", start), ("stop", stop), ("step", step)):
                if v is not None and not isinstance(v, (int, Variable)):
                    raise ArgumentTypeError(f"Variable[...]: a slice's {what} must be an int, got {v!r}")
            axes.append(dim)
            starts.append(0 if start is None else start)
            ends.append(_END if stop is None else stop)
            steps.append(1 if step is None else step)
        elif isinstance(index, Variable) and index.dtype == VarType.BOOL:
            raise ArgumentTypeError(
                f"Variable[...]: a bool mask (dim {dim}) is supported by pe alone, var[mask], not in a tuple"
            )
        elif isinstance(index, Variable) or (isinstance(index, int) and not isinstance(index, bool)):
            axes.append(dim)
            starts.append(index)
            ends.append(index + 1 if isinstance(index, Variable) or index != -1 else _END)
            steps.append(1)
            decrease.append(dim)
        else:
            raise ArgumentTypeError(
                f"Variable[...]: index {index!r} of dim {dim} is not supported by pe: use "
                f"ints and slices of ints (an index held in a Variable: fluid.layers.slice "
                f"or gather)"
            )
    return axes, starts, ends, steps, decrease, reverse


def _check_int_bounds(var, item):
    """An int index past a known dim's size raises IndexError, as Paddle's: ``a, b = var`` and
    ``for row in var`` stop there."""
    for dim, index in enumerate(item if isinstance(item, tuple) else (item,)):
        if (
            isinstance(index, int)
            and not isinstance(index, bool)
            and dim < len(var.shape)
            and var.shape[dim] >= 0
            and index >= var.shape[dim]
        ):
            raise IndexError(f"slice_item {index} at dim {dim} should be >= 0 and < x.shape[{dim}]: {var.shape[dim]}")


def getitem(var, item):
    """``var[item]`` (see the module's docstring); on a tensor array, an int or int Variable index
    reads that item (array_read)."""
    if var.type == VarType.LOD_TENSOR_ARRAY and (
        isinstance(item, Variable) or (isinstance(item, int) and not isinstance(item, bool))
    ):
        index = item if isinstance(item, Variable) else fill_constant([1], "int64", item)
        return array_read(var, index)
    if isinstance(item, Variable) and item.dtype == VarType.BOOL:
        return _masked(var, item)
    _check_int_bounds(var, item)
    axes, starts, ends, steps, decrease, reverse = _parts(item)
    out = var
    if axes:
        strided = any(isinstance(s, Variable) or s != 1 for s in steps)
        bounds = dict({"starts": starts, "ends": ends}, **({"strides": steps} if strided else {}))
        inputs, attrs = bounds_given("strided_slice" if strided else "slice", bounds, axes)
        out = single(
            "strided_slice" if strided else "slice", out, dict(inputs, Input=[out]), dict(attrs, decrease_axis=decrease)
        )
    if reverse:
        kept = [d for d in range(len(var.shape)) if d not in decrease]
        out = single("reverse", out, {"X": [out]}, {"axis": [kept.index(d) for d in reverse]})
    return out


def _masked(var, mask):
    """var[mask] for a bool ``mask`` over var's leading dims: [true count] + var's other dims."""
    lead, given = list(var.shape[: len(mask.shape)]), list(mask.shape)
    if len(given) > len(var.shape) or any(a >= 0 and b >= 0 and a != b for a, b in zip(lead, given)):
        raise IndexError(f"Variable[mask]: the bool mask {given} must match the leading dims of {list(var.shape)}")
    return gather_nd(var, where(mask))
