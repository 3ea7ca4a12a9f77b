"""The meta rules of the pointwise_math ops (ops/pointwise_math.py), structured kernels (shapes/structured.py):
from their inputs' shapes and dtypes, the outputs' shapes and dtypes and the variant that computes them (the CPU
out-kernels: kernels/cpu/pointwise_math.py), decided once per shape signature.

- the unary ops (silu, celu, tan, acosh, asinh, atanh, log2, log10, trunc, conj, logit): Out of X's shape and
  dtype. "ufunc": a row that is one numpy ufunc keeping X's dtype (``UFUNCS``: tan, acosh, ..., conj),
  computed into Out, as the activation table's "ufunc" rows (shapes/activation.py); "array": the row's numpy
  form, its result cast to X's dtype (a fresh variant);
- their gradients: X@GRAD of X's dtype, of the broadcast of X's and Out@GRAD's shapes (Out@GRAD's where the
  derivative reads it alone: conj's); "zeros" (trunc's: 0 everywhere, written into X@GRAD), "array" (fresh);
- the binary and ternary ops, numpy's broadcast of their inputs (atan2 X1, X2; elementwise_fmax, _fmin and
  _heaviside X, Y; lerp X, Y, Weight): "ufunc" (atan2 of float X1, fmax, fmin: the ufunc into Out, of the dtype
  it gives), "ints" (atan2 of integers: float32's angle given as float64, fresh), "array" (heaviside's and lerp's
  numpy forms, fresh) and "numpy" (shapes that do not broadcast, or dtypes a ufunc does not take: the numpy form
  without ``out=``, which refuses them in numpy's words, as the kernels always did);
- their gradients: each input's of its shape and dtype, numpy's forms summed over the broadcast dims (fresh).

A rule refuses nothing: the shape rules did when the op was appended, and numpy refuses values that do not
broadcast when they are computed, as the kernels always did."""

import functools

import numpy as np

from ..base.broadcast_shapes import broadcast
from .activation import _ufunc_keeps
from .structured import Meta

# the unary rows that are one numpy ufunc (the others: numpy forms of several, kernels/cpu/pointwise_math.py)
UFUNCS = {
    "tan": np.tan,
    "acosh": np.arccosh,
    "asinh": np.arcsinh,
    "atanh": np.arctanh,
    "log2": np.log2,
    "log10": np.log10,
    "trunc": np.trunc,
    "conj": np.conj,
}
UNARY = ("silu", "celu", "tan", "acosh", "asinh", "atanh", "log2", "log10", "trunc", "conj", "logit")
# the binary and ternary ops: their input slots (each gets a gradient but lerp's Weight)
SLOTS = {
    "atan2": ("X1", "X2"),
    "elementwise_fmax": ("X", "Y"),
    "elementwise_fmin": ("X", "Y"),
    "elementwise_heaviside": ("X", "Y"),
    "lerp": ("X", "Y", "Weight"),
}
GRADS = {**SLOTS, "lerp": ("X", "Y")}
_BINARY_UFUNCS = {"atan2": np.arctan2, "elementwise_fmax": np.fmax, "elementwise_fmin": np.fmin}
_F64 = np.dtype(np.float64)


def unary_meta(name):
    """The meta rule of the unary op ``name``: Out of X's shape and dtype."""
    ufunc = UFUNCS.get(name)

    def meta(attrs, ins, facts):
        x = ins["X"]
        outputs = {"Out": (x.shape, x.dtype)}
        if ufunc is not None and _ufunc_keeps(ufunc, x.dtype):
            return Meta(outputs, "ufunc")
        return Meta(outputs, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{name}_meta"
    return meta


def unary_grad_meta(name):
    """The meta rule of ``<name>_grad``: X@GRAD of X's dtype, of the shape its derivative gives."""

    def meta(attrs, ins, facts):
        x, dout = ins["X"], ins["Out@GRAD"]
        ds = tuple(dout.shape)
        if name == "trunc":  # (zeros of Out@GRAD's shape)
            return Meta({"X@GRAD": (ds, x.dtype)}, "zeros")
        shape = ds if name == "conj" else tuple(broadcast([tuple(x.shape), ds]) or ds)
        return Meta({"X@GRAD": (shape, x.dtype)}, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{name}_grad_meta"
    return meta


@functools.lru_cache(maxsize=None)
def _ufunc_dtype(ufunc, *dtypes):
    """The dtype ``ufunc`` gives of arrays of ``dtypes``, None where it takes none of them."""
    try:
        return ufunc(*(np.zeros(0, d) for d in dtypes)).dtype
    except TypeError:
        return None


def binary_meta(name):
    """The meta rule of the binary or ternary op ``name``: Out of numpy's broadcast of its inputs."""
    slots, ufunc = SLOTS[name], _BINARY_UFUNCS.get(name)

    def meta(attrs, ins, facts):
        first = ins[slots[0]]
        shape = broadcast([tuple(ins[s].shape) for s in slots])
        if name == "atan2" and first.dtype.kind != "f":
            return Meta({"Out": (tuple(shape or first.shape), _F64)}, "ints", fresh=True)
        dtype = None if ufunc is None else _ufunc_dtype(ufunc, first.dtype, ins[slots[1]].dtype)
        if shape is None or (ufunc is not None and dtype is None):
            return Meta({"Out": (tuple(first.shape), first.dtype)}, "numpy", fresh=True)
        if ufunc is not None:
            return Meta({"Out": (tuple(shape), dtype)}, "ufunc")
        if name == "elementwise_heaviside":  # (numpy's promotion of X and Y; lerp's: X's dtype)
            return Meta({"Out": (tuple(shape), np.result_type(first.dtype, ins["Y"].dtype))}, "array", fresh=True)
        return Meta({"Out": (tuple(shape), first.dtype)}, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{name}_meta"
    return meta


def binary_grad_meta(name):
    """The meta rule of ``<name>_grad``: each input's gradient of its shape and dtype."""
    grads = GRADS[name]

    def meta(attrs, ins, facts):
        return Meta({f"{s}@GRAD": (tuple(ins[s].shape), ins[s].dtype) for s in grads}, "array", fresh=True)

    meta.__name__ = meta.__qualname__ = f"{name}_grad_meta"
    return meta


FORWARD = {**{n: unary_meta(n) for n in UNARY}, **{n: binary_meta(n) for n in SLOTS}}
GRAD = {**{n: unary_grad_meta(n) for n in UNARY}, **{n: binary_grad_meta(n) for n in SLOTS}}
