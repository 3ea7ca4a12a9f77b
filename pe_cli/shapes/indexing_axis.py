"""Meta rules of the values taken from or written into a tensor by index tensors (structured kernels,
shapes/structured.py; their CPU out-kernels: kernels/cpu/indexing_axis.py, gather_scatter.py and
index_assignment.py): take_along_axis, put_along_axis, index_add, fill_diagonal_tensor, index_sample, multiplex,
shard_index, index_put and their gradients. Each reads its inputs' shapes and dtypes and its attributes; the
indices' values (in range) are checked by the out-kernel, every run, with the one line as ever."""

import math

import numpy as np

from ..base.errors import PeError
from .structured import Meta


def _axis(attrs, name, x):
    return attrs[name] % len(x.shape)


def take_along_axis_meta(attrs, ins, facts):
    """take_along_axis' Result: Input's values at Index along ``Axis`` (args), Index's shape, Input's dtype; "take"
    (numpy's fancy indexing, fresh)."""
    x = ins["Input"]
    return Meta({"Result": (tuple(ins["Index"].shape), x.dtype)}, "take", args=(_axis(attrs, "Axis", x),), fresh=True)


def take_along_axis_grad_meta(attrs, ins, facts):
    """take_along_axis_grad's Input@GRAD (Input's shape, Result@GRAD's dtype): "add" (Result@GRAD added into zeros
    at Index along the axis, args)."""
    x = ins["Input"]
    shape = (tuple(x.shape), ins["Result@GRAD"].dtype)
    return Meta({"Input@GRAD": shape}, "add", args=(_axis(attrs, "Axis", x),))


def put_along_axis_meta(attrs, ins, facts):
    """put_along_axis' Result (Input's shape and dtype): Input copied into it, then Value put (or reduced) at Index
    along ``Axis`` (args); the variant its ``Reduce``."""
    x = ins["Input"]
    return Meta({"Result": (tuple(x.shape), x.dtype)}, attrs["Reduce"], args=(_axis(attrs, "Axis", x),))


def put_along_axis_grad_meta(attrs, ins, facts):
    """put_along_axis_grad's Input@GRAD (Input's shape) and Value@GRAD (Value's), Result@GRAD's dtype; "reduce"
    (numpy's arrays, float64 then cast: fresh)."""
    x, value, dtype = ins["Input"], ins["Value"], ins["Result@GRAD"].dtype
    outputs = {"Input@GRAD": (tuple(x.shape), dtype), "Value@GRAD": (tuple(value.shape), dtype)}
    return Meta(outputs, "reduce", args=(_axis(attrs, "Axis", x),), fresh=True)


def index_add_meta(attrs, ins, facts):
    """index_add's Out (X's shape and dtype): X copied, AddValue's slices added at Index along ``axis`` (args);
    "add"."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "add", args=(_axis(attrs, "axis", x),))


def index_add_grad_meta(attrs, ins, facts):
    """index_add_grad's X@GRAD (Out@GRAD itself, copied) and AddValue@GRAD (Out@GRAD's slices at Index along the
    axis, args), Out@GRAD's dtype; "take"."""
    dout, index = ins["Out@GRAD"], ins["Index"]
    axis = _axis(attrs, "axis", dout)
    taken = tuple(dout.shape[:axis]) + tuple(index.shape) + tuple(dout.shape[axis + 1 :])
    outputs = {"X@GRAD": (tuple(dout.shape), dout.dtype), "AddValue@GRAD": (taken, dout.dtype)}
    return Meta(outputs, "take", args=(axis,))


def diagonal_places(shape, attrs):
    """(dim1, dim2, rows, cols): the places of diagonal ``offset`` of dims (dim1, dim2) of ``shape``."""
    d1, d2, offset = attrs["dim1"] % len(shape), attrs["dim2"] % len(shape), attrs["offset"]
    n = max(0, min(shape[d1], shape[d1] + offset, shape[d2], shape[d2] - offset))
    t = np.arange(n)
    return d1, d2, t + max(-offset, 0), t + max(offset, 0)


def fill_diagonal_tensor_meta(attrs, ins, facts):
    """fill_diagonal_tensor's Out (X's shape and dtype): X copied, the diagonal's places (args) set to Y; "fill"."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "fill", args=diagonal_places(tuple(x.shape), attrs))


def fill_diagonal_tensor_grad_meta(attrs, ins, facts):
    """fill_diagonal_tensor_grad's X@GRAD: Out@GRAD copied, its diagonal (args) zeroed; "zero"."""
    dout = ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(dout.shape), dout.dtype)}, "zero", args=diagonal_places(tuple(dout.shape), attrs))


def index_sample_meta(attrs, ins, facts):
    """index_sample's Out: X's values at Index along dim 1 (Index's shape, X's rows and Index's broadcast), X's
    dtype; "take" (a row of Index for each of X's: numpy's take at the flat places, into Out's buffer), else
    "broadcast" (numpy's take_along_axis, fresh)."""
    x, index = ins["X"], ins["Index"]
    shape = np.broadcast_shapes(tuple(x.shape[:1]), tuple(index.shape[:1])) + tuple(index.shape[1:])
    if len(x.shape) == len(index.shape) == 2 and x.shape[0] == index.shape[0]:
        return Meta({"Out": (shape, x.dtype)}, "take")
    return Meta({"Out": (shape, x.dtype)}, "broadcast", fresh=True)


def index_sample_grad_meta(attrs, ins, facts):
    """index_sample_grad's X@GRAD (X's shape, Out@GRAD's dtype): "add" (Out@GRAD added into zeros at Index)."""
    return Meta({"X@GRAD": (tuple(ins["X"].shape), ins["Out@GRAD"].dtype)}, "add")


def multiplex_meta(attrs, ins, facts):
    """multiplex's Out: row i of X[Ids[i]], [len(Ids)] + X's rows' dims, the Xs' dtype; "pick" (numpy's stack
    indexed, fresh)."""
    xs = ins["X"]
    shape = (math.prod(ins["Ids"].shape),) + tuple(xs[0].shape[1:])
    return Meta({"Out": (shape, np.result_type(*(x.dtype for x in xs)))}, "pick", fresh=True)


def multiplex_grad_meta(attrs, ins, facts):
    """multiplex_grad's X@GRAD, one per X (the op's count): Out@GRAD's rows where Ids names that X, else 0; "rows"."""
    dout = ins["Out@GRAD"]
    spec = (tuple(dout.shape), dout.dtype)
    return Meta({"X@GRAD": [spec] * facts.output_counts["X@GRAD"]}, "rows")


def shard_index_check(attrs):
    """Fluid's run-time checks of shard_index's attributes; the shard size."""
    n, shards, shard = attrs["index_num"], attrs["nshards"], attrs["shard_id"]
    if n is None or shards is None or shard is None:
        raise PeError("shard_index: index_num, nshards and shard_id must all be given")
    if n <= 0 or shards <= 0 or not 0 <= shard < shards:
        raise PeError(f"shard_index: index_num={n} and nshards={shards} must be > 0, shard_id={shard} in [0, nshards)")
    return (n + shards - 1) // shards


def shard_index_meta(attrs, ins, facts):
    """shard_index's Out (X's shape and dtype), its attributes checked (one line, as Fluid's kernel); "shard"
    (numpy's where, fresh; args: the shard's size)."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), x.dtype)}, "shard", args=(shard_index_check(attrs),), fresh=True)


def index_put_meta(attrs, ins, facts):
    """index_put's out (x's shape and dtype): x copied, value put (``accumulate``: added) at the indices; "put"."""
    x = ins["x"]
    return Meta({"out": (tuple(x.shape), x.dtype)}, "put")


def index_put_grad_meta(attrs, ins, facts):
    """index_put_grad's x@GRAD (out@GRAD's shape and dtype; zeros at the indices unless ``accumulate``) and
    value@GRAD (out@GRAD at the indices summed to value's shape, value's dtype); "picked" (fresh)."""
    d, value = ins["out@GRAD"], ins["value"]
    outputs = {"x@GRAD": (tuple(d.shape), d.dtype), "value@GRAD": (tuple(value.shape), value.dtype)}
    return Meta(outputs, "picked", fresh=True)
