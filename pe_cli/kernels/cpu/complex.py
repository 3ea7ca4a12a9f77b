"""The complex family's CPU out-kernels (their meta rules: shapes/complex.py), over numpy's complex64 / complex128
arrays, which compute into the buffers they are handed (the ops' kernels by name: the same meta rule and out-kernel,
kernels/structured.adapter; CUDA runs them on the host)."""

import numpy as np

from ...shapes import complex as rules
from ..structured import adapter


def _reduce_to(grad, shape):
    """``grad`` summed over the dims a broadcast input of ``shape`` was stretched along."""
    lead = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(lead))) if lead else grad
    dims = tuple(d for d, n in enumerate(shape) if n == 1 and grad.shape[d] != 1)
    return (grad.sum(axis=dims, keepdims=True) if dims else grad).reshape(shape)


def complex_out(ins, outs, attrs, meta):
    """Out = X + i Y, broadcast."""
    out = outs["Out"]
    out.real, out.imag = ins["X"], ins["Y"]


def complex_grad_out(ins, outs, attrs, meta):
    """X@GRAD, Y@GRAD: Out@GRAD's real and imaginary parts, summed over the dims X and Y were broadcast along."""
    x, y, dout = ins["X"], ins["Y"], ins["Out@GRAD"]
    np.copyto(outs["X@GRAD"], _reduce_to(np.real(dout), x.shape), casting="unsafe")
    np.copyto(outs["Y@GRAD"], _reduce_to(np.imag(dout), y.shape), casting="unsafe")


def real_out(ins, outs, attrs, meta):
    np.copyto(outs["Out"], ins["X"].real)


def imag_out(ins, outs, attrs, meta):
    np.copyto(outs["Out"], ins["X"].imag)


def real_grad_out(ins, outs, attrs, meta):
    np.copyto(outs["X@GRAD"], ins["Out@GRAD"])  # (+ 0i)


def imag_grad_out(ins, outs, attrs, meta):
    out = outs["X@GRAD"]
    out.real = 0
    out.imag = ins["Out@GRAD"]


def angle_out(ins, outs, attrs, meta):
    """atan2(im, re) of a complex X (numpy's angle), else pi where X < 0 and 0 elsewhere."""
    x = ins["X"]
    if meta.variant == "complex":
        np.arctan2(x.imag, x.real, out=outs["Out"])
    else:
        np.copyto(outs["Out"], np.where(x < 0, np.pi, 0.0), casting="unsafe")


def angle_grad_out(ins, outs, attrs, meta):
    """Out@GRAD (-im + i re) / |X|^2 (0 at 0) of a complex X; zeros of a real one."""
    x, d = ins["X"], ins["Out@GRAD"]
    if meta.variant == "real":
        outs["X@GRAD"].fill(0)
        return
    r2 = x.real * x.real + x.imag * x.imag
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = np.where(r2 == 0, 0, d * (-x.imag + 1j * x.real) / r2)
    np.copyto(outs["X@GRAD"], grad, casting="unsafe")


def as_complex_out(ins, outs, attrs, meta):
    """Out's parts, seen as X's shape of reals, are X."""
    x = ins["X"]
    outs["Out"].reshape(-1).view(x.dtype).reshape(x.shape)[...] = x


def as_real_out(ins, outs, attrs, meta):
    """Out, seen as X's shape of complex values, is X."""
    x = ins["X"]
    outs["Out"].reshape(-1).view(x.dtype).reshape(x.shape)[...] = x


# the kernels by name (CUDA's host ops run them): the same meta rules and out-kernels
complex = adapter(rules.complex_meta, complex_out, "complex")  # noqa: A001 -- the op's name
complex_grad = adapter(rules.complex_grad_meta, complex_grad_out, "complex_grad")
real = adapter(rules.part_meta, real_out, "real")
imag = adapter(rules.part_meta, imag_out, "imag")
real_grad = adapter(rules.part_grad_meta, real_grad_out, "real_grad")
imag_grad = adapter(rules.part_grad_meta, imag_grad_out, "imag_grad")
angle = adapter(rules.angle_meta, angle_out, "angle")
angle_grad = adapter(rules.angle_grad_meta, angle_grad_out, "angle_grad")
as_complex = adapter(rules.as_complex_meta, as_complex_out, "as_complex")
as_real = adapter(rules.as_real_meta, as_real_out, "as_real")
