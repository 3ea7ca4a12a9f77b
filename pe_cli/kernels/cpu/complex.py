"""The complex family's CPU kernels, over numpy's complex64 / complex128 arrays."""

import numpy as np

_COMPLEX = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def _reduce_to(grad, shape):
    """``grad`` summed over the dims a broadcast input of ``shape`` was stretched along."""
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead))) if lead else grad
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    return (grad.sum(axis=dims, keepdims=True) if dims else grad).reshape(shape)


def complex(ins, attrs):  # noqa: A001 -- the op's name
    x, y = ins["X"], ins["Y"]
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtype=_COMPLEX[x.dtype])
    out.real, out.imag = x, y
    return {"Out": out}


def complex_grad(ins, attrs):
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    return {
        "X@GRAD": _reduce_to(np.real(dout), x.shape).astype(x.dtype),
        "Y@GRAD": _reduce_to(np.imag(dout), y.shape).astype(y.dtype),
    }


def real(ins, attrs):
    return {"Out": np.ascontiguousarray(ins["X"].real)}


def imag(ins, attrs):
    return {"Out": np.ascontiguousarray(ins["X"].imag)}


def real_grad(ins, attrs):
    d = ins["Out@GRAD"]
    return {"X@GRAD": d.astype(_COMPLEX[d.dtype])}


def imag_grad(ins, attrs):
    d = ins["Out@GRAD"]
    out = np.zeros(d.shape, dtype=_COMPLEX[d.dtype])
    out.imag = d
    return {"X@GRAD": out}


def angle(ins, attrs):
    x = ins["X"]
    if x.dtype.kind == "c":
        return {"Out": np.angle(x).astype(x.real.dtype)}
    return {"Out": np.where(x < 0, np.pi, 0.0).astype(x.dtype)}


def angle_grad(ins, attrs):
    x, d = ins["X"], ins["Out@GRAD"]
    if x.dtype.kind != "c":
        return {"X@GRAD": np.zeros_like(x)}
    r2 = x.real * x.real + x.imag * x.imag
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = np.where(r2 == 0, 0, d * (-x.imag + 1j * x.real) / r2)
    return {"X@GRAD": grad.astype(x.dtype)}


def as_complex(ins, attrs):
    x = np.ascontiguousarray(ins["X"])
    return {"Out": x.view(_COMPLEX[x.dtype]).reshape(x.shape[:-1])}


def as_real(ins, attrs):
    x = np.ascontiguousarray(ins["X"])
    return {"Out": x.view(x.real.dtype).reshape(x.shape + (2,))}
