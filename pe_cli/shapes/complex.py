"""The meta rules of the complex family's ops (ops/complex.py), structured kernels (shapes/structured.py): the outputs'
shapes and dtypes from the inputs' (complex64 holds float32 parts, complex128 float64 ones) and the variant that
computes them (the CPU out-kernels: kernels/cpu/complex.py), decided once per shape signature.

- complex: Out, X and Y broadcast, of X's complex dtype; complex_grad: X@GRAD and Y@GRAD of X's and Y's;
- real, imag: Out of X's shape and its parts' dtype; real_grad, imag_grad: X@GRAD of Out@GRAD's shape, complex;
- angle: "complex" (atan2 of the parts, their dtype) or "real" (0 or pi, X's dtype); angle_grad of X's;
- as_complex: Out of X's shape without its last dim (of 2), complex; as_real: X's shape and 2, the parts' dtype."""

import numpy as np

from .structured import Meta

COMPLEX = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_PARTS = {c: f for f, c in COMPLEX.items()}


def _parts(dtype):
    """The dtype of a value's real and imaginary parts (a real value's own)."""
    dtype = np.dtype(dtype)
    return _PARTS.get(dtype, dtype)


def complex_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    shape = np.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    return Meta({"Out": (shape, COMPLEX[np.dtype(x.dtype)])}, "parts")


def complex_grad_meta(attrs, ins, facts):
    x, y = ins["X"], ins["Y"]
    out = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype)), "Y@GRAD": (tuple(y.shape), np.dtype(y.dtype))}
    return Meta(out, "sums")


def part_meta(attrs, ins, facts):
    """real's and imag's Out."""
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape), _parts(x.dtype))}, "part")


def part_grad_meta(attrs, ins, facts):
    """real_grad's and imag_grad's X@GRAD: Out@GRAD as the one part of a complex value."""
    d = ins["Out@GRAD"]
    return Meta({"X@GRAD": (tuple(d.shape), COMPLEX[np.dtype(d.dtype)])}, "part")


def angle_meta(attrs, ins, facts):
    x = ins["X"]
    is_complex = np.dtype(x.dtype).kind == "c"
    return Meta({"Out": (tuple(x.shape), _parts(x.dtype))}, "complex" if is_complex else "real")


def angle_grad_meta(attrs, ins, facts):
    x = ins["X"]
    is_complex = np.dtype(x.dtype).kind == "c"
    return Meta({"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}, "complex" if is_complex else "real")


def as_complex_meta(attrs, ins, facts):
    x = ins["X"]
    shape, dtype = tuple(x.shape), np.dtype(x.dtype)
    if dtype not in COMPLEX or not shape or shape[-1] != 2:
        raise ValueError(f"as_complex: X {list(shape)} ({dtype}) must be float32 or float64 with a last dim of 2")
    return Meta({"Out": (shape[:-1], COMPLEX[dtype])}, "parts")


def as_real_meta(attrs, ins, facts):
    x = ins["X"]
    return Meta({"Out": (tuple(x.shape) + (2,), _parts(x.dtype))}, "parts")
