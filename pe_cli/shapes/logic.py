"""The meta rules of the comparison, logical and bitwise ops and the finiteness checks, structured kernels
(shapes/structured.py): from ``axis`` and the shapes and dtypes of X (and Y), Out's shape and dtype and the
variant that computes it (the CPU out-kernels: kernels/cpu/logic.py), decided once per shape signature.

- the comparisons (less_than, less_equal, greater_than, greater_equal, equal, not_equal): Y of fewer dims
  placed in X under Fluid's ``axis`` rule, as the binary elementwise ops place it (shapes/elementwise.py's
  ``aligned``), then numpy's broadcast; Out bool. Variants: "ufunc" (X and Y broadcast as they are) and
  "aligned" (``args``: the shape Y takes first, 1s around it: no copy); "numpy" (shapes that do not broadcast,
  a fresh variant: the ufunc without ``out=`` refuses them in numpy's words, as the kernels always did); equal and
  not_equal of floats: "near" (Fluid 1.8's EqualFunctor: within 1e-8) or "near_paddle2" (Paddle 2.6's);
- logical_and, logical_or, logical_xor (bool Out) and bitwise_and, bitwise_or, bitwise_xor (Out of the
  dtype numpy's ufunc gives: X's where Y's is X's, as their shape rule asks): numpy's broadcast, "ufunc"
  (or "numpy", as above);
  logical_not (bool), bitwise_not (X's dtype), isfinite_v2, isinf_v2, isnan_v2 (bool, X's shape): "ufunc";
- isfinite, isinf, isnan (Fluid's: one bool of the whole X, [1]), equal_all (a 0-D bool: X and Y of one
  shape and equal values), equal_reduce (a bool [1]: X and Y, Y placed under the axis rule, equal, floats
  within 1e-8) and allclose (a bool [1], 0-D where the op says so: ``facts.zero_dim``): "reduce";
- isclose (bool, Input's shape): "numpy", a fresh variant.

A rule refuses nothing but allclose's and isclose's Input and Other of different shapes (their kernels' one
line): the shape rules did when the op was appended, and numpy refuses values that do not broadcast (or
dtypes a ufunc does not take) when they are computed, as the kernels always did."""

import functools

import numpy as np

from ..base.broadcast_shapes import broadcast
from ..base.errors import PeError
from .elementwise import aligned
from .reduction import scalar_shape
from .structured import Meta

_BOOL = np.dtype(np.bool_)


def _binary(xs, ys, dtype, args=()):
    """The Meta of a binary op's ufunc over X and Y of shapes ``xs`` and ``ys`` (Y's as the op places it): Out of
    numpy's broadcast of the two and ``dtype``, "ufunc" into it; "numpy" where they do not broadcast (the ufunc
    without ``out=``, which refuses them in numpy's words, as the kernels always did)."""
    shape = broadcast((xs, ys))
    if shape is None:
        return Meta({"Out": (xs, dtype)}, "numpy", args=args, fresh=True)
    return Meta({"Out": (tuple(shape), dtype)}, "aligned" if args else "ufunc", args=args)


def compare_meta(attrs, ins, facts):
    """A comparison's rule: Out bool, of numpy's broadcast of X and of Y placed in X under Fluid's axis rule."""
    xs, ys = tuple(ins["X"].shape), tuple(ins["Y"].shape)
    ya = aligned(xs, ys, attrs.get("axis", -1))
    return _binary(xs, ya, _BOOL, () if ya == ys or not ys else (ya,))  # (a 0-D Y broadcasts as it is)


def equality_meta(attrs, ins, facts):
    """equal's and not_equal's rule: a comparison's, and for float values Fluid 1.8's EqualFunctor, "near" (within
    1e-8), or in a Paddle 2.x program (``facts.paddle2``) Paddle 2.6's, "near_paddle2" (infinities and NaN apart)."""
    meta = compare_meta(attrs, ins, facts)
    dtype = np.result_type(np.dtype(ins["X"].dtype), np.dtype(ins["Y"].dtype))
    if meta.fresh or dtype.kind != "f":
        return meta
    return Meta(meta.outputs, "near_paddle2" if facts.paddle2 else "near", args=meta.args)


def logical_meta(attrs, ins, facts):
    """logical_and, _or, _xor's rule: Out bool, of numpy's broadcast of X and Y."""
    return _binary(tuple(ins["X"].shape), tuple(ins["Y"].shape), _BOOL)


def flags_meta(attrs, ins, facts):
    """logical_not's, isfinite_v2's, isinf_v2's and isnan_v2's rule: Out bool, of X's shape."""
    return Meta({"Out": (ins["X"].shape, _BOOL)}, "ufunc")


@functools.lru_cache(maxsize=None)
def _ufunc_dtype(ufunc, *dtypes):
    """The dtype ``ufunc`` gives of arrays of ``dtypes`` (the first's where it takes none of them: it refuses
    them when the values are computed)."""
    try:
        return ufunc(*(np.zeros(0, d) for d in dtypes)).dtype
    except TypeError:
        return dtypes[0]


def bitwise_meta(ufunc):
    """A bitwise op's rule: Out of the dtype ``ufunc`` gives, of numpy's broadcast of X (and Y)."""

    def meta(attrs, ins, facts):
        x, y = ins["X"], ins.get("Y")
        if y is None:
            return Meta({"Out": (x.shape, _ufunc_dtype(ufunc, x.dtype))}, "ufunc")
        return _binary(tuple(x.shape), tuple(y.shape), _ufunc_dtype(ufunc, x.dtype, y.dtype))

    meta.__name__ = meta.__qualname__ = f"{ufunc.__name__}_meta"
    return meta


def flag_meta(attrs, ins, facts):
    """isfinite's, isinf's and isnan's rule (Fluid's): Out a bool [1] of the whole X."""
    return Meta({"Out": ((1,), _BOOL)}, "reduce")


def equal_all_meta(attrs, ins, facts):
    """equal_all's rule: Out a 0-D bool."""
    return Meta({"Out": ((), _BOOL)}, "reduce")


def equal_reduce_meta(attrs, ins, facts):
    """equal_reduce's rule: Out a bool [1]."""
    return Meta({"Out": ((1,), _BOOL)}, "reduce")


def _same_shape(op, ins):
    """Input's shape, where Other's is it; else the op's one-line refusal."""
    x, y = tuple(ins["Input"].shape), tuple(ins["Other"].shape)
    if x != y:
        raise PeError(f"{op}: Input {list(x)} and Other {list(y)} must have the same shape")
    return x


def allclose_meta(attrs, ins, facts):
    """allclose's rule: Input and Other of one shape; Out a bool [1], 0-D where the op says so (``facts.zero_dim``:
    a paddle.allclose of a Paddle 2.x program); Paddle 2.6's closeness where the op computes Paddle 2.x's
    (``facts.paddle2``): "paddle2_rule"."""
    _same_shape("allclose", ins)
    return Meta({"Out": (scalar_shape(facts.zero_dim), _BOOL)}, "paddle2_rule" if facts.paddle2 else "reduce")


def isclose_meta(attrs, ins, facts):
    """isclose's rule: Input and Other of one shape; Out bool of that shape, numpy's ``where`` of the NaN rule
    over the tolerance's (a fresh variant: ``where`` writes through no ``out=``)."""
    return Meta({"Out": (_same_shape("isclose", ins), _BOOL)}, "numpy", fresh=True)


COMPARE_OPS = ("less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal")
LOGICAL_OPS = ("logical_and", "logical_or", "logical_xor")
BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}
BITWISE["bitwise_not"] = np.invert
META = {
    **dict.fromkeys(COMPARE_OPS, compare_meta),
    **dict.fromkeys(("equal", "not_equal"), equality_meta),
    **dict.fromkeys(LOGICAL_OPS, logical_meta),
    **dict.fromkeys(("logical_not", "isfinite_v2", "isinf_v2", "isnan_v2"), flags_meta),
    **{op: bitwise_meta(ufunc) for op, ufunc in BITWISE.items()},
    **dict.fromkeys(("isfinite", "isinf", "isnan"), flag_meta),
    "equal_all": equal_all_meta,
    "equal_reduce": equal_reduce_meta,
    "allclose": allclose_meta,
    "isclose": isclose_meta,
}
