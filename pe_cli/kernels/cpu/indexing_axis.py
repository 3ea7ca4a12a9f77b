"""The indexing_axis family's CPU out-kernels (structured kernels; their meta rules: shapes/indexing_axis.py), over
numpy: an index tensor along an axis becomes one index array per dim (the other dims' positions broadcast), so
gathers are fancy indexing and scatters numpy's ``ufunc.at`` (repeated places accumulate)."""

import numpy as np

from ...base.errors import PeError
from ...shapes import indexing_axis as rules
from ..structured import adapter, fresh_output
from .launches import by_variant


def _in_range(index, axis, size, op_type):
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = int(index.min()) if index.min() < 0 else int(index.max())
        raise PeError(f"{op_type}: Index holds {bad}, outside [0, {size}) along axis {axis}")


def _places(index, axis, size, op_type):
    """(index arrays for every dim: Index along ``axis``, the positions elsewhere), Index checked to lie
    in [0, size)."""
    _in_range(index, axis, size, op_type)
    grids = list(np.indices(index.shape, sparse=True))
    grids[axis] = index.astype(np.int64)
    return tuple(grids)


def _take(ins, outs, attrs, meta):
    x, (axis,) = ins["Input"], meta.args
    taken = x[_places(ins["Index"], axis, x.shape[axis], "take_along_axis")]
    outs["Result"] = fresh_output(taken, meta.outputs["Result"], ins.values())


def _take_grad(ins, outs, attrs, meta):
    x, dx, (axis,) = ins["Input"], outs["Input@GRAD"], meta.args
    dx.fill(0)
    np.add.at(dx, _places(ins["Index"], axis, x.shape[axis], "take_along_axis_grad"), ins["Result@GRAD"])


TAKE_ALONG_AXIS = by_variant("take_along_axis_out", None, take=_take)
TAKE_ALONG_AXIS_GRAD = by_variant("take_along_axis_grad_out", None, add=_take_grad)


def _targets(x, index, value, axis, op_type):
    """(the places written as flat indices of x, Value cropped to Index's shape, flattened)."""
    places = _places(index, axis, x.shape[axis], op_type)
    flat = np.ravel_multi_index(np.broadcast_arrays(*places), x.shape).reshape(-1)
    value = value[tuple(slice(0, n) for n in index.shape)] if value.ndim else np.broadcast_to(value, index.shape)
    return flat, np.ascontiguousarray(value).reshape(-1)


def _last_writes(flat):
    """A mask of the writes that are the last to their place."""
    keep = np.zeros(flat.size, dtype=bool)
    _, last = np.unique(flat[::-1], return_index=True)
    keep[flat.size - 1 - last] = True
    return keep


_EMPTY = {"add": 0, "mean": 0, "mul": 1, "multiply": 1}


def _start(out, x, flat, reduce, include_self):
    """``out`` (Input's values, flat) with the places written set to the reduction's start unless Input's own
    values take part."""
    if reduce == "assign" or include_self:
        return
    if reduce in _EMPTY:
        out[flat] = _EMPTY[reduce]
    else:
        big = np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max
        out[flat] = big if reduce == "amin" else -big


def _counts(x, flat, include_self):
    return np.bincount(flat, minlength=x.size).astype(np.float64) + (1 if include_self else 0)


def put_along_axis_out(ins, outs, attrs, meta):
    """Result: Input copied, then Value put at Index along the axis (the variant: ``Reduce``; repeated places:
    the last write, or reduced in order)."""
    x, reduce, include_self, (axis,) = ins["Input"], meta.variant, attrs["Include_self"], meta.args
    flat, values = _targets(x, ins["Index"], ins["Value"], axis, "put_along_axis")
    result = outs["Result"]
    np.copyto(result, x)
    out = result.reshape(-1)  # (the buffer's memory, C order)
    _start(out, x, flat, reduce, include_self)
    if reduce == "assign":
        keep = _last_writes(flat)
        out[flat[keep]] = values[keep]
    elif reduce in ("add", "mean"):
        np.add.at(out, flat, values)
        if reduce == "mean":
            written = np.unique(flat)
            mean = out[written] / _counts(x, flat, include_self)[written]
            out[written] = mean if x.dtype.kind == "f" else np.trunc(mean)
    elif reduce in ("mul", "multiply"):
        np.multiply.at(out, flat, values)
    else:
        (np.minimum if reduce == "amin" else np.maximum).at(out, flat, values)


def put_along_axis_grad_out(ins, outs, attrs, meta):
    x, value, result, dout = ins["Input"], ins["Value"], ins["Result"], ins["Result@GRAD"]
    reduce, include_self, (axis,) = attrs["Reduce"], attrs["Include_self"], meta.args
    flat, values = _targets(x, ins["Index"], value, axis, "put_along_axis_grad")
    d, r, xs = dout.reshape(-1).astype(np.float64), result.reshape(-1), x.reshape(-1)
    written = np.unique(flat)
    dx = d.copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        if reduce in ("amin", "amax"):
            equal = np.bincount(flat, weights=(values == r[flat]), minlength=x.size) + (xs == r)
            dv = d[flat] * (values == r[flat]) / equal[flat]
            self_part = d * (xs == r) / equal
        elif reduce in ("mul", "multiply"):
            dv, self_part = d[flat] * r[flat] / values, d * r / xs
        elif reduce == "mean":
            counts = _counts(x, flat, include_self)
            dv, self_part = d[flat] / counts[flat], d / counts
        else:
            dv, self_part = d[flat] * (_last_writes(flat) if reduce == "assign" else 1), d
        dx[written] = self_part[written] if include_self and reduce != "assign" else 0
    dvalue = np.zeros(value.shape, dtype=np.float64)
    dvalue[tuple(slice(0, n) for n in ins["Index"].shape)] = dv.reshape(ins["Index"].shape)
    dtype = meta.outputs["Input@GRAD"][1]
    outs["Input@GRAD"] = fresh_output(dx.reshape(x.shape).astype(dtype), meta.outputs["Input@GRAD"], ins.values())
    outs["Value@GRAD"] = fresh_output(dvalue.astype(dtype), meta.outputs["Value@GRAD"], ins.values())


def _index_add(ins, outs, attrs, meta):
    x, index, out, (axis,) = ins["X"], ins["Index"], outs["Out"], meta.args
    _in_range(index, axis, x.shape[axis], "index_add")
    np.copyto(out, x)
    np.add.at(np.moveaxis(out, axis, 0), index.astype(np.int64), np.moveaxis(ins["AddValue"], axis, 0))


def _index_add_grad(ins, outs, attrs, meta):
    dout = ins["Out@GRAD"]
    np.copyto(outs["X@GRAD"], dout)
    np.take(dout, ins["Index"].astype(np.int64), axis=meta.args[0], out=outs["AddValue@GRAD"])


INDEX_ADD = by_variant("index_add_out", None, add=_index_add)
INDEX_ADD_GRAD = by_variant("index_add_grad_out", None, take=_index_add_grad)


def _fill_diagonal(ins, outs, attrs, meta):
    d1, d2, rows, cols = meta.args
    out = outs["Out"]
    np.copyto(out, ins["X"])
    view = np.moveaxis(out, (d1, d2), (-2, -1))
    view[..., rows, cols] = ins["Y"].reshape(view.shape[:-2] + (rows.size,))


def _zero_diagonal(ins, outs, attrs, meta):
    d1, d2, rows, cols = meta.args
    dx = outs["X@GRAD"]
    np.copyto(dx, ins["Out@GRAD"])
    np.moveaxis(dx, (d1, d2), (-2, -1))[..., rows, cols] = 0


FILL_DIAGONAL_TENSOR = by_variant("fill_diagonal_tensor_out", None, fill=_fill_diagonal)
FILL_DIAGONAL_TENSOR_GRAD = by_variant("fill_diagonal_tensor_grad_out", None, zero=_zero_diagonal)


# (the kernels by name CUDA runs on the host: kernels/cuda/indexing_axis.py's HOST_OPS)
take_along_axis = adapter(rules.take_along_axis_meta, TAKE_ALONG_AXIS, "take_along_axis")
take_along_axis_grad = adapter(rules.take_along_axis_grad_meta, TAKE_ALONG_AXIS_GRAD, "take_along_axis_grad")
put_along_axis = adapter(rules.put_along_axis_meta, put_along_axis_out, "put_along_axis")
put_along_axis_grad = adapter(rules.put_along_axis_grad_meta, put_along_axis_grad_out, "put_along_axis_grad")
index_add = adapter(rules.index_add_meta, INDEX_ADD, "index_add")
index_add_grad = adapter(rules.index_add_grad_meta, INDEX_ADD_GRAD, "index_add_grad")
fill_diagonal_tensor = adapter(rules.fill_diagonal_tensor_meta, FILL_DIAGONAL_TENSOR, "fill_diagonal_tensor")
fill_diagonal_tensor_grad = adapter(
    rules.fill_diagonal_tensor_grad_meta, FILL_DIAGONAL_TENSOR_GRAD, "fill_diagonal_tensor_grad"
)
