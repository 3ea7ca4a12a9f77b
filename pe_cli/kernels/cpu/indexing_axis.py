"""The indexing_axis family's CPU kernels, over numpy: an index tensor along an axis becomes one index
array per dim (the other dims' positions broadcast), so gathers are fancy indexing and scatters numpy's
``ufunc.at`` (repeated places accumulate)."""

import numpy as np

from ...base.errors import PeError


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


def take_along_axis(ins, attrs):
    x, index = ins["Input"], ins["Index"]
    axis = attrs["Axis"] % x.ndim
    return {"Result": x[_places(index, axis, x.shape[axis], "take_along_axis")]}


def take_along_axis_grad(ins, attrs):
    x, index, dout = ins["Input"], ins["Index"], ins["Result@GRAD"]
    axis = attrs["Axis"] % x.ndim
    dx = np.zeros(x.shape, dtype=dout.dtype)
    np.add.at(dx, _places(index, axis, x.shape[axis], "take_along_axis_grad"), dout)
    return {"Input@GRAD": dx}


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


def _start(x, flat, reduce, include_self):
    out = np.array(x).reshape(-1)
    if reduce == "assign" or include_self:
        return out
    if reduce in _EMPTY:
        out[flat] = _EMPTY[reduce]
    else:
        big = np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max
        out[flat] = big if reduce == "amin" else -big
    return out


def _counts(x, flat, include_self):
    return np.bincount(flat, minlength=x.size).astype(np.float64) + (1 if include_self else 0)


def put_along_axis(ins, attrs):
    x, reduce, include_self = ins["Input"], attrs["Reduce"], attrs["Include_self"]
    axis = attrs["Axis"] % x.ndim
    flat, values = _targets(x, ins["Index"], ins["Value"], axis, "put_along_axis")
    out = _start(x, flat, reduce, include_self)
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
    return {"Result": out.reshape(x.shape)}


def put_along_axis_grad(ins, attrs):
    x, value, result, dout = ins["Input"], ins["Value"], ins["Result"], ins["Result@GRAD"]
    reduce, include_self, axis = attrs["Reduce"], attrs["Include_self"], attrs["Axis"] % x.ndim
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
    return {"Input@GRAD": dx.reshape(x.shape).astype(dout.dtype), "Value@GRAD": dvalue.astype(dout.dtype)}


def index_add(ins, attrs):
    x, index, value = ins["X"], ins["Index"], ins["AddValue"]
    axis = attrs["axis"] % x.ndim
    _in_range(index, axis, x.shape[axis], "index_add")
    out = np.array(x)
    np.add.at(np.moveaxis(out, axis, 0), index.astype(np.int64), np.moveaxis(value, axis, 0))
    return {"Out": out}


def index_add_grad(ins, attrs):
    dout, index = ins["Out@GRAD"], ins["Index"]
    return {"X@GRAD": np.array(dout), "AddValue@GRAD": np.take(dout, index.astype(np.int64), axis=attrs["axis"])}


def _diagonal(shape, attrs):
    """(dim1, dim2, rows, cols): the diagonal's places in those two dims."""
    d1, d2, offset = attrs["dim1"] % len(shape), attrs["dim2"] % len(shape), attrs["offset"]
    n = max(0, min(shape[d1], shape[d1] + offset, shape[d2], shape[d2] - offset))
    t = np.arange(n)
    return d1, d2, t + max(-offset, 0), t + max(offset, 0)


def fill_diagonal_tensor(ins, attrs):
    x, y = ins["X"], ins["Y"]
    d1, d2, rows, cols = _diagonal(x.shape, attrs)
    out = np.array(x)
    view = np.moveaxis(out, (d1, d2), (-2, -1))
    view[..., rows, cols] = y.reshape(view.shape[:-2] + (rows.size,))
    return {"Out": out}


def fill_diagonal_tensor_grad(ins, attrs):
    dout = np.array(ins["Out@GRAD"])
    d1, d2, rows, cols = _diagonal(dout.shape, attrs)
    np.moveaxis(dout, (d1, d2), (-2, -1))[..., rows, cols] = 0
    return {"X@GRAD": dout}
