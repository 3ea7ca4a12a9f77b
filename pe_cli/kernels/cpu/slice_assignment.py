"""set_value's kernels (pe_cli/ops/slice_assignment.py): the region as one index array per dim (np.ix_), its
starts and ends clamped as Paddle 2.6's CheckAndUpdateSliceAttrs clamps them (here: they may come from tensors at
run time). The out-kernels of shapes/slice_assignment.py's meta rules: set_value's fills the Out it is handed,
set_value_grad's hands over numpy's arrays (fresh)."""

import numpy as np

from ...base.dtypes import convert_dtype
from ...base.errors import PeError
from ...shapes.slice_assignment import set_value_grad_meta, set_value_meta
from ..structured import adapter, fresh_kernel


def _clamped(start, end, step, dim):
    """(start, end) of one axis as Paddle clamps them (end -1 with a negative step: through index 0)."""
    if dim == 0:
        return 0, 0
    start = max(start + dim if start < 0 else start, 0)
    end = min(end + dim if step > 0 and end < 0 else end, dim)
    if step > 0:
        start, end = min(start, dim), max(end, 0)
        if end < start:
            raise PeError(f"set_value: end {end} is before start {start} along a dim of {dim} (step {step})")
    else:
        start = min(start, dim - 1)
        end = max(end + dim if end < -1 else end, -1)
        if start < end:
            raise PeError(f"set_value: start {start} is before end {end} along a dim of {dim} (step {step})")
    return start, end


def region(shape, attrs):
    """(one index array per dim, the region's shape, the shape the value broadcasts to)."""
    index = [np.arange(d) for d in shape]
    steps = list(attrs["steps"]) or [1] * len(attrs["axes"])
    for ax, start, end, step in zip(attrs["axes"], attrs["starts"], attrs["ends"], steps):
        ax = ax % len(shape)
        start, end = _clamped(int(start), int(end), int(step), shape[ax])
        index[ax] = np.arange(start, end, step)
    dims = [len(i) for i in index]
    assign = [d for i, d in enumerate(dims) if i not in {a % len(shape) for a in attrs["decrease_axes"]}]
    for ax in sorted(attrs["none_axes"]):
        assign.insert(ax, 1)
    return index, dims, assign


def _value(ins, attrs, dtype):
    if ins.get("ValueTensor") is not None:
        return ins["ValueTensor"]
    return np.array(attrs["values"], dtype=convert_dtype(attrs["dtype"])).reshape(attrs["shape"] or ())


def _set_value(ins, outs, attrs, meta):
    """Out: Input, its region set to the value broadcast to it (the region and the broadcast checked first)."""
    x = ins["Input"]
    index, dims, assign = region(x.shape, attrs)
    value = _value(ins, attrs, x.dtype)
    try:
        placed = np.broadcast_to(value, assign).reshape(dims)
    except ValueError:
        raise PeError(
            f"set_value: the value of shape {list(np.shape(value))} does not broadcast to the region "
            f"{assign} of Input {list(x.shape)}"
        ) from None
    out = outs["Out"]
    np.copyto(out, x)
    out[np.ix_(*index)] = placed


def _set_value_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    index, dims, assign = region(dout.shape, attrs)
    dx = dout.copy()
    dx[np.ix_(*index)] = 0
    out = {"Input@GRAD": dx}
    value = ins.get("ValueTensor")
    if value is not None:
        part = dout[np.ix_(*index)].reshape(assign)
        lead = part.ndim - value.ndim
        axes = tuple(range(lead)) + tuple(
            lead + i for i, d in enumerate(value.shape) if d == 1 and part.shape[lead + i] != 1
        )
        out["ValueTensor@GRAD"] = part.sum(axis=axes).reshape(value.shape).astype(value.dtype, copy=False)
    return out


SET_VALUE = _set_value
SET_VALUE_GRAD = fresh_kernel(_set_value_grad, "set_value_grad_out")
set_value = adapter(set_value_meta, SET_VALUE, "set_value")  # (the kernels by name: CUDA's host fallbacks)
set_value_grad = adapter(set_value_grad_meta, SET_VALUE_GRAD, "set_value_grad")
