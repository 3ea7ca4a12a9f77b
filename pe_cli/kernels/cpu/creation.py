"""Kernels of ops/creation.py: filling, copying, ranges, eye, diag, triangles; numpy, one pass each.
fill_constant's is a structured kernel's out-kernel (pe_cli/shapes/structured.py): ``FILL_CONSTANT``."""

import numpy as np

from ...base.errors import PeError
from . import control_flow
from .launches import Launch, flat as flat_arg, one
from .runtime.loops import lazy
from ...shapes.creation import constant, fill_value, linspace_scalars, range_scalars, range_size


def fake_init(ins, attrs):
    return {"Out": np.zeros(attrs["shape"], dtype=np.float32)}


_loops = lazy("_reduce_loops")


def fill_constant_out(ins, outs, attrs, meta):
    """Out, of the shape and dtype its meta rule gave (pe_cli/shapes/creation.py), filled with the value."""
    outs["Out"].fill(fill_value(ins, attrs))  # (np.full's Python wrapper: twice the time of a one-value fill)


def fill_constant_launches(op, table, meta):
    """A planned step's fill_constant of no tensor inputs: the out-kernel runs once, now, and the launch copies
    its constant (ints and floats: a loop compiled for them) into Out's buffer each step; else None."""
    out = one(op, "Out", "outputs")
    shape, dtype = meta.outputs["Out"]
    if any(op.inputs.get(s) for s in op.inputs) or out is None or dtype.kind not in "fiu":
        return None
    value = np.empty(shape, dtype)
    fill_constant_out({}, {"Out": value}, op.attrs, meta)
    return [Launch(_loops().copy, [("array", value.reshape(-1)), flat_arg(table, out)], writes=[out])]


fill_constant_out.launches = fill_constant_launches


def fill_zeros_like(ins, attrs):
    if isinstance(ins["X"], list):  # a tensor array (control flow): empty slots
        return {"Out": control_flow.zeros_like(ins["X"])}
    return {"Out": np.zeros_like(ins["X"])}


def assign(ins, attrs):
    return {"Out": ins["X"].copy()} if "X" in ins else {}


# assign_value's long constants as arrays, by the attribute list they came from (held, so its id is
# not reused), dtype and shape: a loop's step converted a beam search's [10,000]-value row from its
# Python list each time (0.5 ms, against 5 us for a copy of the array)
_CONSTANTS = {}
_CONSTANTS_KEPT = 64
_LONG = 256


def assign_value(ins, attrs):
    slot = {"int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}.get(attrs["dtype"], "fp32_values")
    if attrs["dtype"] == "float64" and attrs.get("fp64_values"):  # Paddle 2.6's float64 values, unrounded
        slot = "fp64_values"
    values, dtype, shape = attrs[slot], np.dtype(attrs["dtype"]), attrs["shape"]
    if len(values) < _LONG:
        return {"Out": np.asarray(values, dtype=dtype).reshape(shape)}
    key = (id(values), dtype, tuple(shape))
    held = _CONSTANTS.get(key)
    if held is None or held[0] is not values:
        if len(_CONSTANTS) >= _CONSTANTS_KEPT:
            _CONSTANTS.clear()
        held = _CONSTANTS[key] = (values, np.asarray(values, dtype=dtype).reshape(shape))
    return {"Out": held[1].copy()}  # a new array each run: later ops may write over it


def arange(ins, attrs):
    start, end, step = range_scalars(ins)
    n = range_size(start, end, step)
    dtype = np.asarray(ins["Start"]).dtype
    return {"Out": (start + np.arange(n, dtype=dtype) * step).astype(dtype, copy=False)}


def fill_any_like(ins, attrs):
    x = ins["X"]
    return {"Out": np.full(x.shape, attrs["value"], dtype=np.dtype(attrs["dtype"] or x.dtype))}


def eye(ins, attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    return {"Out": np.eye(rows, rows if cols < 0 else cols, dtype=np.dtype(attrs["dtype"]))}


def diag(ins, attrs):
    return {"Out": np.diag(ins["Diagonal"])}


def triangle(shape, attrs):
    """The bool mask [rows, cols] of the kept triangle."""
    rows, cols = shape[-2], shape[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    return offset <= attrs["diagonal"] if attrs["lower"] else offset >= attrs["diagonal"]


def diag_embed(ins, attrs):
    x, offset = np.asarray(ins["Input"]), attrs["offset"]
    n = x.shape[-1]
    side = n + abs(offset)
    out = np.zeros(x.shape[:-1] + (side, side), dtype=x.dtype)
    ids = np.arange(n)
    out[..., ids + max(-offset, 0), ids + max(offset, 0)] = x
    rank = x.ndim + 1
    return {"Out": np.moveaxis(out, [-2, -1], [attrs["dim1"] % rank, attrs["dim2"] % rank])}


def tril_triu(ins, attrs):
    x = ins["X"]
    return {"Out": np.where(triangle(x.shape, attrs), x, np.zeros((), dtype=x.dtype))}


def tril_triu_grad(ins, attrs):
    dout = ins["Out@GRAD"]
    return {"X@GRAD": np.where(triangle(dout.shape, attrs), dout, np.zeros((), dtype=dout.dtype))}


def batch_size_like(ins, attrs):
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = np.shape(ins["Input"])[attrs["input_dim_idx"]]
    return shape


def fill_constant_batch_size_like(ins, attrs):
    return {"Out": np.full(batch_size_like(ins, attrs), constant(attrs), dtype=attrs["dtype"])}


def fill(ins, attrs):
    n = int(np.prod(attrs["shape"], dtype=np.int64))
    values = np.asarray(attrs["value"][:n], dtype=np.float32)
    return {"Out": values.astype(attrs["dtype"]).reshape(attrs["shape"])}


def fill_zeros_like2(ins, attrs):
    return {"Out": np.zeros(np.shape(ins["X"]), dtype=attrs["dtype"])}


def linspace_paddle2(ins, dtype):
    """Paddle 2.x's linspace (its op has ``dtype``): Start and Stop cast to dtype, step = (stop - start) / (num - 1)
    in double; the first half start + step * i, the rest stop - step * (num - 1 - i), each cast to dtype."""
    t = np.dtype(dtype).type
    start, stop = t(ins["Start"].reshape(-1)[0]), t(ins["Stop"].reshape(-1)[0])
    num = int(ins["Num"].reshape(-1)[0])
    if num <= 0:
        raise PeError(f"linspace: Num is {num}; it must be larger than 0")
    if num == 1:
        return np.array([start], dtype)
    step = float(t(stop - start)) / (num - 1)
    i = np.arange(num, dtype=np.float64)
    values = np.where(i < num // 2, float(start) + step * i, float(stop) - step * (num - 1 - i))
    return values.astype(dtype)


def linspace(ins, attrs):
    """Fluid's CPU kernel: start, then the previous value plus step, one step at a time (np.add.accumulate
    runs in order, as Fluid's loop); Paddle 2.x's where the op has its ``dtype`` (linspace_paddle2)."""
    if attrs.get("dtype"):
        return {"Out": linspace_paddle2(ins, attrs["dtype"])}
    start, step, num = linspace_scalars(ins)
    steps = np.full(num, step, ins["Start"].dtype)
    steps[0] = start
    return {"Out": np.add.accumulate(steps, dtype=steps.dtype)}


def meshgrid(ins, attrs):
    xs = [x.reshape(-1) for x in ins["X"]]
    sizes = [len(x) for x in xs]
    outs = []
    for i, x in enumerate(xs):
        view = x.reshape([n if j == i else 1 for j, n in enumerate(sizes)])
        outs.append(np.ascontiguousarray(np.broadcast_to(view, sizes)))
    return {"Out": outs}


def meshgrid_grad(ins, attrs):
    grads = []
    for i, (x, d) in enumerate(zip(ins["X"], ins["Out@GRAD"])):
        others = tuple(j for j in range(d.ndim) if j != i)
        grads.append(d.sum(axis=others).reshape(x.shape).astype(x.dtype, copy=False))
    return {"X@GRAD": grads}
