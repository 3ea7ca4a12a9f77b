"""Kernels of ops/creation.py: filling, copying, ranges, eye, diag, triangles; numpy, one pass each: structured
kernels' out-kernels (their meta rules: pe_cli/shapes/creation.py) computing into the buffers they are handed (range's
and linspace's, whose length their values give, and assign's: fresh variants); the kernels by name the CUDA kernels
run on the host are the same two (kernels/structured.adapter)."""

import numpy as np

from ...base.errors import PeError
from . import control_flow
from .launches import Launch, by_variant, copied, flat as flat_arg, one
from .runtime.loops import lazy
from ..structured import adapter
from ...shapes import creation as rules
from ...shapes.creation import constant, fill_value, linspace_scalars, range_scalars, range_size


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


def _arange(ins, outs, attrs, meta):
    start, end, step = range_scalars(ins)
    n = range_size(start, end, step)
    dtype = np.asarray(ins["Start"]).dtype
    outs["Out"] = (start + np.arange(n, dtype=dtype) * step).astype(dtype, copy=False)


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


def _linspace_paddle2(ins, outs, attrs, meta):
    outs["Out"] = linspace_paddle2(ins, attrs["dtype"])


def _linspace_fluid(ins, outs, attrs, meta):
    """Fluid's CPU kernel: start, then the previous value plus step, one step at a time (np.add.accumulate
    runs in order, as Fluid's loop)."""
    start, step, num = linspace_scalars(ins)
    steps = np.full(num, step, ins["Start"].dtype)
    steps[0] = start
    outs["Out"] = np.add.accumulate(steps, dtype=steps.dtype)


# (fresh variants: the length is the inputs' values)
RANGE = by_variant("range_out", None, arange=_arange)
LINSPACE = by_variant("linspace_out", None, paddle2=_linspace_paddle2, fluid=_linspace_fluid)


# -- the other creation ops' out-kernels (their meta rules: shapes/creation.py) ------------------------------------


def _zeros(slot):
    def run(ins, outs, attrs, meta):
        outs[slot].fill(0)

    return run


def _tensor_array_zeros(ins, outs, attrs, meta):
    outs["Out"] = control_flow.zeros_like(ins["X"])


def _zeros_like(ins, outs, attrs, meta):
    outs["Out"] = np.zeros_like(ins["X"])


def _nothing(ins, outs, attrs, meta):
    pass


def _copy(ins, outs, attrs, meta):
    outs["Out"] = ins["X"].copy()  # (a numpy array's: C-contiguous, whatever X's layout)


FILL_ZEROS_LIKE = by_variant(
    "fill_zeros_like_out", None, zeros=_zeros("Out"), array=_tensor_array_zeros, other=_zeros_like
)


def _assign_launches(op, table, meta):
    """A planned step's launch of "copy": _reduce_loops.copy of X's values into Out's buffer (the values of
    numpy's copy), where X is a tensor of a dtype numba's loops copy; else None."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if meta.variant != "copy" or x is None or out is None or x not in table or out not in table:
        return None
    if table[x] != table[out] or not copied(table[x][1]):
        return None
    return [Launch(_loops().copy, [flat_arg(table, x), flat_arg(table, out)], writes=[out])]


ASSIGN = by_variant("assign_out", _assign_launches, copy=_copy, none=_nothing)
FILL_ZEROS_LIKE2 = by_variant("fill_zeros_like2_out", None, zeros=_zeros("Out"))


def fake_init_out(ins, outs, attrs, meta):
    outs["Out"].fill(0)


# assign_value's long constants as arrays, by the attribute list they came from (held, so its id is
# not reused), dtype and shape: a loop's step converted a beam search's [10,000]-value row from its
# Python list each time (0.5 ms, against 5 us for a copy of the array)
_CONSTANTS = {}
_CONSTANTS_KEPT = 64
_LONG = 256


def _values(attrs, dtype, shape):
    slot = {"int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}.get(attrs["dtype"], "fp32_values")
    if attrs["dtype"] == "float64" and attrs.get("fp64_values"):  # Paddle 2.6's float64 values, unrounded
        slot = "fp64_values"
    values = attrs[slot]
    if len(values) < _LONG:
        return np.asarray(values, dtype=dtype).reshape(shape)
    key = (id(values), dtype, tuple(shape))
    held = _CONSTANTS.get(key)
    if held is None or held[0] is not values:
        if len(_CONSTANTS) >= _CONSTANTS_KEPT:
            _CONSTANTS.clear()
        held = _CONSTANTS[key] = (values, np.asarray(values, dtype=dtype).reshape(shape))
    return held[1]


def assign_value_out(ins, outs, attrs, meta):
    """Out = the values of the attribute of its dtype (a long list's array converted once: ``_CONSTANTS``)."""
    out = outs["Out"]
    np.copyto(out, _values(attrs, out.dtype, attrs["shape"]))


def fill_out(ins, outs, attrs, meta):
    """Out = fill's numbers, as float32, cast to Out's dtype."""
    out = outs["Out"]
    values = np.asarray(attrs["value"][: out.size], dtype=np.float32)
    np.copyto(out, values.reshape(attrs["shape"]), casting="unsafe")


def fill_any_like_out(ins, outs, attrs, meta):
    np.copyto(outs["Out"], attrs["value"], casting="unsafe")  # (np.full's own fill)


def fill_constant_batch_size_like_out(ins, outs, attrs, meta):
    np.copyto(outs["Out"], constant(attrs), casting="unsafe")  # (np.full's own fill)


def eye_out(ins, outs, attrs, meta):
    out = outs["Out"]
    out.fill(0)
    np.fill_diagonal(out, 1)


def diag_out(ins, outs, attrs, meta):
    out = outs["Out"]
    out.fill(0)
    n = out.shape[0]
    out.reshape(-1)[:: n + 1] = ins["Diagonal"]


def diag_embed_out(ins, outs, attrs, meta):
    """Input's last-dim vectors on diagonal ``offset`` of Out's planes (dim1, dim2): written through Out seen with
    those two dims last."""
    x, offset = ins["Input"], attrs["offset"]
    view = np.moveaxis(outs["Out"], meta.args, (-2, -1))
    view.fill(0)
    ids = np.arange(x.shape[-1])
    view[..., ids + max(-offset, 0), ids + max(offset, 0)] = x


def _triangle_of(slot, out_slot):
    def run(ins, outs, attrs, meta):
        out = outs[out_slot]
        out.fill(0)
        np.copyto(out, ins[slot], where=meta.args[0])

    return run


TRIL_TRIU = by_variant("tril_triu_out", None, mask=_triangle_of("X", "Out"))
TRIL_TRIU_GRAD = by_variant("tril_triu_grad_out", None, mask=_triangle_of("Out@GRAD", "X@GRAD"))


def meshgrid_out(ins, outs, attrs, meta):
    """Out[i] = X[i]'s values along dim i, repeated along the others."""
    (sizes,) = meta.args
    for i, (x, out) in enumerate(zip(ins["X"], outs["Out"])):
        np.copyto(out, x.reshape([n if j == i else 1 for j, n in enumerate(sizes)]))


def _grad_sums(cast):
    def run(ins, outs, attrs, meta):
        for i, (d, dx) in enumerate(zip(ins["Out@GRAD"], outs["X@GRAD"])):
            others = tuple(j for j in range(d.ndim) if j != i)
            if cast:  # (summed in the gradient's dtype, then cast to X's)
                np.copyto(dx, d.sum(axis=others).reshape(dx.shape), casting="unsafe")
            else:
                np.add.reduce(d, axis=others, dtype=d.dtype, out=dx.reshape(d.shape[i : i + 1] if others else d.shape))

    return run


MESHGRID_GRAD = by_variant("meshgrid_grad_out", None, sum=_grad_sums(False), cast=_grad_sums(True))

fill_zeros_like = adapter(rules.like_meta, FILL_ZEROS_LIKE, "fill_zeros_like")
assign_value = adapter(rules.shaped_meta, assign_value_out, "assign_value")
fill = adapter(rules.shaped_meta, fill_out, "fill")
fill_constant_batch_size_like = adapter(
    rules.batch_size_like_meta, fill_constant_batch_size_like_out, "fill_constant_batch_size_like"
)
diag_embed = adapter(rules.diag_embed_meta, diag_embed_out, "diag_embed")
linspace = adapter(rules.run_length_meta, LINSPACE, "linspace")
