"""CUDA twins of kernels/cpu/special.py: kernels/special_math.py's scalar functions compiled as device
functions (in float64, stored in the input's dtype), one elementwise launch each (the gradients one
launch of (x or Out, Out@GRAD)); nextafter runs its CPU twin on the host."""

import math

import numpy as np
from numba import cuda

from .. import special_math
from ._elementwise import Binary, Unary
from ._host import host_ops


def _d(fn):
    return cuda.jit(device=True, inline=True)(fn)


_F = special_math.compiled(_d)


def _map(name):
    f = _F[name]
    return Unary(_d(lambda x, p, q: f(float(x))))


def _map_n(name):
    """``name`` of (n, x), n given as p."""
    f = _F[name]
    return Unary(_d(lambda x, p, q: f(p, float(x))))


def _scaled(name):
    """dout * ``name``(a): a gradient from the forward value a (x or Out)."""
    f = _F[name]
    return Binary(_d(lambda a, d, p, q: d * f(float(a))))


def _scaled_n(name):
    f = _F[name]
    return Binary(_d(lambda a, d, p, q: d * f(p, float(a))))


_DIGAMMA, _LGAMMA, _ERFINV = _map("_digamma"), _map("_lgamma"), _map("_erfinv")
_I0, _I0E, _I1, _I1E = _map("_i0"), _map("_i0e"), _map("_i1"), _map("_i1e")
_POLYGAMMA = _map_n("_polygamma")
_BY_POLYGAMMA, _BY_DIGAMMA, _BY_ERFINV = _scaled_n("_polygamma"), _scaled("_digamma"), _scaled("_erfinv_derivative")
_BY_I1, _BY_I0E_D, _BY_I1_D, _BY_I1E_D = (
    _scaled(n) for n in ("_i1", "_i0e_derivative", "_i1_derivative", "_i1e_derivative")
)
_EXPM1 = Unary(_d(lambda x, p, q: math.expm1(float(x))))
_BY_OUT_PLUS_1 = Binary(_d(lambda out, d, p, q: d * (out + 1)))


def digamma(ins, attrs):
    return {"Out": _DIGAMMA(ins["X"])}


def lgamma(ins, attrs):
    return {"Out": _LGAMMA(ins["X"])}


def erfinv(ins, attrs):
    return {"Out": _ERFINV(ins["X"])}


def i0(ins, attrs):
    return {"out": _I0(ins["x"])}


def i0e(ins, attrs):
    return {"out": _I0E(ins["x"])}


def i1(ins, attrs):
    return {"out": _I1(ins["x"])}


def i1e(ins, attrs):
    return {"out": _I1E(ins["x"])}


def polygamma(ins, attrs):
    return {"out": _POLYGAMMA(ins["x"], float(attrs["n"]))}


def digamma_grad(ins, attrs):
    return {"X@GRAD": _BY_POLYGAMMA(ins["X"], ins["Out@GRAD"], 1.0)}


def lgamma_grad(ins, attrs):
    return {"X@GRAD": _BY_DIGAMMA(ins["X"], ins["Out@GRAD"])}


def polygamma_grad(ins, attrs):
    return {"x@GRAD": _BY_POLYGAMMA(ins["x"], ins["out@GRAD"], float(attrs["n"]) + 1.0)}


def erfinv_grad(ins, attrs):
    return {"X@GRAD": _BY_ERFINV(ins["Out"], ins["Out@GRAD"])}


def i0_grad(ins, attrs):
    return {"x@GRAD": _BY_I1(ins["x"], ins["out@GRAD"])}


def i0e_grad(ins, attrs):
    return {"x@GRAD": _BY_I0E_D(ins["x"], ins["out@GRAD"])}


def i1_grad(ins, attrs):
    return {"x@GRAD": _BY_I1_D(ins["x"], ins["out@GRAD"])}


def i1e_grad(ins, attrs):
    return {"x@GRAD": _BY_I1E_D(ins["x"], ins["out@GRAD"])}


def expm1(ins, attrs):
    x = ins["X"]
    return {"Out": _EXPM1(x, dtype=np.float32 if np.dtype(x.dtype).kind in "iu" else None)}


def expm1_grad(ins, attrs):
    return {"X@GRAD": _BY_OUT_PLUS_1(ins["Out"], ins["Out@GRAD"])}


HOST_OPS = host_ops("nextafter")
