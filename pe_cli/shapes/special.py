"""The meta rules of the special functions (ops/special.py), structured kernels (shapes/structured.py): from their
inputs' shapes and dtypes, the outputs' shapes and dtypes and the variant that computes them (the CPU out-kernels:
kernels/cpu/special.py), decided once per shape signature.

- digamma, lgamma, erfinv, i0, i0e, i1, i1e, polygamma: Out of X's shape and dtype, "ufunc": the function's
  compiled float64 ufunc into Out (X's values cast to float64, its results to X's dtype);
- expm1: numpy's; "ufunc" into Out of the dtype it gives (X's float dtype), "ints" (int32 / int64 X, as float32:
  Out float32), "numpy" (a dtype the ufunc does not take: refused in numpy's words, fresh);
- nextafter: x and y of one shape (else the kernel's one-line refusal), out of the dtype numpy's nextafter gives
  of x's dtype twice (y cast to it), "ufunc" into it (or "numpy", as expm1's);
- the gradients: Out@GRAD times the derivative (in the dtype numpy's product gives, of the broadcast shape):
  "product" (np.multiply into X@GRAD), "array" (shapes that do not broadcast, which the product refuses, and complex values: fresh)."""

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.errors import PeError
from .pointwise_math import _ufunc_dtype
from .structured import Meta

_F32 = np.dtype(np.float32)
# op -> (its input slot, its output slot); the grad op's: the slot it reads, the gradient's slots
UNARY = {
    "digamma": ("X", "Out"),
    "lgamma": ("X", "Out"),
    "erfinv": ("X", "Out"),
    "i0": ("x", "out"),
    "i0e": ("x", "out"),
    "i1": ("x", "out"),
    "i1e": ("x", "out"),
    "polygamma": ("x", "out"),
}
GRAD_READS = {
    **{op: x for op, (x, _) in UNARY.items()},
    "erfinv": "Out",
    "expm1": "Out",
}


def unary_meta(op):
    x_slot, out_slot = UNARY[op]

    def meta(attrs, ins, facts):
        x = ins[x_slot]
        return Meta({out_slot: (x.shape, x.dtype)}, "ufunc")

    meta.__name__ = meta.__qualname__ = f"{op}_meta"
    return meta


def grad_slots(op):
    """(the slot ``<op>_grad`` reads, its Out@GRAD slot, its X@GRAD slot): X's or x's, as the op spells them."""
    reads = GRAD_READS[op]
    return (reads, "Out@GRAD", "X@GRAD") if reads in ("X", "Out") else (reads, "out@GRAD", "x@GRAD")


def grad_meta(op):
    """The grad op's rule: X@GRAD = Out@GRAD times the derivative at the slot it reads (in that slot's dtype)."""
    reads, dslot, gslot = grad_slots(op)

    def meta(attrs, ins, facts):
        a, dout = ins[reads], ins[dslot]
        shape, dtype = broadcast([tuple(a.shape), tuple(dout.shape)]), np.result_type(dout.dtype, a.dtype)
        if shape is None or dtype.kind == "c":  # (complex: numpy's scalar product of a 0-D one, as the kernel's)
            return Meta({gslot: (tuple(shape or dout.shape), dtype)}, "array", fresh=True)
        return Meta({gslot: (tuple(shape), dtype)}, "product")

    meta.__name__ = meta.__qualname__ = f"{op}_grad_meta"
    return meta


def _ufunc_meta(out_slot, shape, ufunc, *dtypes):
    dtype = _ufunc_dtype(ufunc, *dtypes)
    if dtype is None:
        return Meta({out_slot: (shape, dtypes[0])}, "numpy", fresh=True)
    return Meta({out_slot: (shape, dtype)}, "ufunc")


def expm1_meta(attrs, ins, facts):
    """expm1's rule: ints as float32 (Paddle's), else numpy's expm1 of X's dtype."""
    x = ins["X"]
    if x.dtype.kind in "iu":
        return Meta({"Out": (x.shape, _F32)}, "ints")
    return _ufunc_meta("Out", x.shape, np.expm1, x.dtype)


def nextafter_meta(attrs, ins, facts):
    """nextafter's rule: x and y of one shape (the kernel's refusal otherwise); y cast to x's dtype."""
    x, y = ins["x"], ins["y"]
    if x.shape != y.shape:
        raise PeError(f"nextafter: x {list(x.shape)} and y {list(y.shape)} must have the same shape")
    return _ufunc_meta("out", x.shape, np.nextafter, x.dtype, x.dtype)


FORWARD = {**{op: unary_meta(op) for op in UNARY}, "expm1": expm1_meta, "nextafter": nextafter_meta}
GRAD = {op: grad_meta(op) for op in GRAD_READS}
