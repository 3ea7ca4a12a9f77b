"""The special family's CPU kernels: kernels/special_math.py's scalar functions as numba ufuncs over
float64 (compiled on first use and cached), the results rounded to the input's dtype; expm1 is
numpy's, nextafter numpy's in the inputs' dtype (nextafterf for float32, as Paddle)."""

import functools

import numpy as np

from ...base.activations import bind
from ...base.errors import PeError
from .. import special_math
from .runtime.numba_cache import install

_UNARY = {
    "digamma": "_digamma",
    "lgamma": "_lgamma",
    "erfinv": "_erfinv",
    "i0": "_i0",
    "i0e": "_i0e",
    "i1": "_i1",
    "i1e": "_i1e",
    "i0e_derivative": "_i0e_derivative",
    "i1_derivative": "_i1_derivative",
    "i1e_derivative": "_i1e_derivative",
    "erfinv_derivative": "_erfinv_derivative",
}


@functools.lru_cache(maxsize=None)
def _helpers():
    import numba

    install()
    return special_math.compiled(numba.njit(cache=True, nogil=True))


@functools.lru_cache(maxsize=None)
def _ufunc(name):
    """The numba ufunc of special_math's ``name`` (one float64 argument, or two for polygamma)."""
    import numba

    install()
    fn = bind(special_math.python(name), **_helpers())
    sig = "float64(float64, float64)" if name == "_polygamma" else "float64(float64)"
    return numba.vectorize([sig], cache=True, nopython=True)(fn)


def _apply(name, x, *extra):
    """special_math's ``name`` of every element of x (in float64), in x's dtype."""
    x64 = np.asarray(x, dtype=np.float64)
    key = _UNARY.get(name, name)
    with np.errstate(all="ignore"):
        return np.asarray(_ufunc(key)(*extra, x64) if extra else _ufunc(key)(x64)).astype(x.dtype, copy=False)


def _forward(op_type, x_slot="X", out_slot="Out"):
    def kernel(ins, attrs):
        return {out_slot: _apply(op_type, ins[x_slot])}

    kernel.__name__ = kernel.__qualname__ = op_type
    return kernel


digamma, lgamma, erfinv = _forward("digamma"), _forward("lgamma"), _forward("erfinv")
i0, i0e, i1, i1e = (_forward(t, "x", "out") for t in ("i0", "i0e", "i1", "i1e"))


def polygamma(ins, attrs):
    return {"out": _apply("_polygamma", ins["x"], float(attrs["n"]))}


def digamma_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _apply("_polygamma", x, 1.0)}


def lgamma_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _apply("digamma", x)}


def polygamma_grad(ins, attrs):
    x, dout = ins["x"], ins["out@GRAD"]
    return {"x@GRAD": dout * _apply("_polygamma", x, float(attrs["n"]) + 1.0)}


def erfinv_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * _apply("erfinv_derivative", out)}


def i0_grad(ins, attrs):
    x, dout = ins["x"], ins["out@GRAD"]
    return {"x@GRAD": dout * _apply("i1", x)}


def _grad_by(derivative):
    def kernel(ins, attrs):
        x, dout = ins["x"], ins["out@GRAD"]
        return {"x@GRAD": dout * _apply(derivative, x)}

    kernel.__name__ = kernel.__qualname__ = derivative.replace("_derivative", "_grad")
    return kernel


i0e_grad, i1_grad, i1e_grad = _grad_by("i0e_derivative"), _grad_by("i1_derivative"), _grad_by("i1e_derivative")


def expm1(ins, attrs):
    x = ins["X"]
    if x.dtype.kind in "iu":
        x = x.astype(np.float32)
    return {"Out": np.expm1(x)}


def expm1_grad(ins, attrs):
    out, dout = ins["Out"], ins["Out@GRAD"]
    return {"X@GRAD": dout * (out + out.dtype.type(1))}


def nextafter(ins, attrs):
    x, y = ins["x"], ins["y"]
    if x.shape != y.shape:
        raise PeError(f"nextafter: x {list(x.shape)} and y {list(y.shape)} must have the same shape")
    return {"out": np.nextafter(x, y.astype(x.dtype, copy=False))}
