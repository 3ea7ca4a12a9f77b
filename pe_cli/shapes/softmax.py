"""The meta rules of softmax, log_softmax and their grad ops, structured kernels (shapes/structured.py): from the
op's ``axis`` and its inputs' shapes and dtypes, the output's shape and dtype, the axis the values are normalised
along and the variant that computes them (the CPU out-kernels: kernels/cpu/softmax.py), decided once per shape
signature.

The axis (Fluid's and Paddle 2.x's default -1 alike) is told as a dim of the input, ``Meta.args == (axis,)``:
a negative axis counted from the end. The shape rule refused an axis out of range at build time; a kernel called
by name with one computes as it always did: the row loops take any axis that is the last modulo the rank (a 1-D
input's every axis), numpy's passes the attribute as it is, so that numpy refuses it in its own words; 0-D values
keep it too (numpy reduces a 0-D array along -1 or 0).

- "rows": along the last axis of float32 or float64 values, not empty (a gradient: Out and Out@GRAD of one shape
  and dtype), the numba row loops (_softmax_loops.py; log_softmax's: _softmax_rows_loops.py, float32 only);
- "numpy": the rest (another axis, float16, empty values, other dtypes), numpy's passes along the axis: a
  ``fresh`` variant of the dtype numpy gives (ints: float64; a gradient: its inputs' common dtype).

A rule refuses nothing: the shape rule (ops/activation.py) refused non-float X and an axis out of range."""

import functools

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.dims import numel
from .structured import Meta

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_F32, _F64 = _FLOATS
ROWS, NUMPY = "rows", "numpy"


def _axis(attrs, rank):
    """``attrs['axis']`` as a dim of ``rank`` dims (counted from the end where negative), or as it is (above)."""
    axis = attrs["axis"]
    return axis % rank if rank and -rank <= axis < rank else axis


def _rows(shape, dtype, attrs, dtypes=_FLOATS):
    """Whether the values lie as the row loops take them: the axis the last of at least one dim (modulo the rank,
    above), not empty, of ``dtypes``."""
    rank = len(shape)
    return rank > 0 and attrs["axis"] % rank == rank - 1 and numel(shape) > 0 and dtype in dtypes


def _forward(name, dtypes, kept):
    """The rule of softmax or log_softmax: "rows" over ``dtypes``; numpy's passes keep the dtypes of the kinds
    ``kept`` and give float64 for the rest (ints)."""

    def meta(attrs, ins, facts):
        x = ins["X"]
        shape, dtype = tuple(x.shape), np.dtype(x.dtype)
        if _rows(shape, dtype, attrs, dtypes):
            return Meta({"Out": (shape, dtype)}, ROWS, loop_inputs=("X",), args=(len(shape) - 1,))
        given = (shape, dtype if dtype.kind in kept else _F64)
        return Meta({"Out": given}, NUMPY, args=(_axis(attrs, len(shape)),), fresh=True)

    meta.__name__ = meta.__qualname__ = f"{name}_meta"
    return meta


softmax_meta = _forward("softmax", _FLOATS, "fc")  # (np.maximum keeps a complex)
log_softmax_meta = _forward("log_softmax", (_F32,), "f")


@functools.lru_cache(maxsize=None)
def _exp_and_sum(dtype):
    """The dtypes of numpy's exp of ``dtype`` values and of their sum (ints: a float, int64)."""
    z = np.zeros(1, dtype)
    with np.errstate(all="ignore"):
        return np.exp(z).dtype, z.sum().dtype


def _shape_of(*shapes):
    """numpy's broadcast of ``shapes``, or the first where they do not broadcast (numpy raises its own error
    when the values are computed)."""
    return tuple(broadcast(shapes) or shapes[0])


def softmax_grad_meta(attrs, ins, facts):
    """softmax_grad (Out, Out@GRAD -> X@GRAD = Out (dOut - sum(dOut Out))): "rows" or "numpy" (above)."""
    out, dout = ins["Out"], ins["Out@GRAD"]
    shape, dtype = tuple(out.shape), np.dtype(out.dtype)
    if _rows(shape, dtype, attrs) and tuple(dout.shape) == shape and dout.dtype == dtype:
        return Meta({"X@GRAD": (shape, dtype)}, ROWS, loop_inputs=("Out", "Out@GRAD"), args=(len(shape) - 1,))
    given = (_shape_of(shape, tuple(dout.shape)), np.result_type(dtype, dout.dtype))
    return Meta({"X@GRAD": given}, NUMPY, args=(_axis(attrs, len(shape)),), fresh=True)


def log_softmax_grad_meta(attrs, ins, facts):
    """log_softmax_grad (Out, Out@GRAD -> X@GRAD = dOut - exp(Out) sum(dOut)): numpy's passes, "numpy"."""
    out, dout = ins["Out"], ins["Out@GRAD"]
    shape = _shape_of(tuple(dout.shape), tuple(out.shape))
    dtype = np.result_type(dout.dtype, _exp_and_sum(np.dtype(out.dtype))[0], _exp_and_sum(np.dtype(dout.dtype))[1])
    return Meta({"X@GRAD": (shape, dtype)}, NUMPY, args=(_axis(attrs, len(out.shape)),), fresh=True)


# -- fused_softmax_mask (ops/masked_softmax.py): Out = softmax(X + Mask), numpy's form (kernels/cpu/masked_softmax.py),
# "numpy" (fresh): Out of X + Mask's broadcast shape in X's dtype; its gradient X@GRAD of Out and Out@GRAD's
# broadcast shape in Out's dtype.


def _numpy_spec(shapes, dtype):
    return tuple(broadcast([tuple(s) for s in shapes]) or shapes[0]), np.dtype(dtype)


def fused_softmax_mask_meta(attrs, ins, facts):
    x = ins["X"]
    return Meta({"Out": _numpy_spec([x.shape, ins["Mask"].shape], x.dtype)}, "numpy", fresh=True)


def masked_softmax_grad_meta(attrs, ins, facts):
    out = ins["Out"]
    return Meta({"X@GRAD": _numpy_spec([out.shape, ins["Out@GRAD"].shape], out.dtype)}, "numpy", fresh=True)
