"""Kernels of ops/logic.py: comparisons, logical and bitwise ops and the finiteness checks (ops/elementwise.py's
isfinite, isinf, isnan), numpy elementwise.

Structured (pe_cli/shapes/structured.py): ``OUT[op]``, ``out(ins, outs, attrs, meta)``, computes the variant its
meta rule chose (pe_cli/shapes/logic.py) into the buffer it is handed, through the ufunc's ``out=``:

- "ufunc": the op's ufunc over X (and Y) as they are (numpy's broadcast);
- "aligned" (the comparisons): Y first reshaped to the shape Fluid's axis rule gives it in X (``meta.args``;
  1s added around it: a view, no copy);
- "near" and "near_paddle2" (equal and not_equal of floats): Fluid 1.8's and Paddle 2.6's EqualFunctor (``near``),
  Y placed as "aligned" places it;
- "numpy": X and Y whose shapes do not broadcast: the ufunc without ``out=``, which refuses them in numpy's words
  (a fresh variant);
- "reduce": Fluid's isfinite, isinf, isnan (one bool of the whole X), equal_all (X and Y of one shape and
  equal values), equal_reduce (Fluid's EqualReduceFunctor) and allclose (Fluid's rule), the one value written
  into the [1] or 0-D Out;
- "numpy" (isclose): Paddle 2.6's IscloseFunctor, numpy's ``where`` of the NaN rule, handed over (fresh).

A planned step launches "ufunc" of the comparisons and logical ops where X and Y have one dtype (bool, an
integer, float32/64) and each holds Out's values or one (``_compare_launches``: _logic_loops' compare and logical,
numpy's bits).

The ops' kernels by name (CUDA's host fallbacks, kernels/cuda/logic.py) are these over their rules
(kernels/structured.adapter)."""

import math

import numpy as np

from ...shapes import logic as meta_rules
from ..structured import adapter, fresh_output
from .elementwise_binary import align
from .launches import Launch, by_variant, flat, one
from .runtime.loops import lazy

_logic_loops = lazy("_logic_loops")
PLAIN = frozenset(np.dtype(t) for t in (bool, "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8"))
_CODES = dict(zip(("less_than", "less_equal", "greater_than", "greater_equal", "equal", "not_equal"), range(6)))
_CODES.update(zip(("logical_and", "logical_or", "logical_xor", "logical_not"), range(4)))


def _ufunc(fn):
    def variant(ins, outs, attrs, meta):
        fn(ins["X"], ins["Y"], out=outs["Out"])

    return variant


def _refused(fn):
    """Shapes that do not broadcast: numpy's ufunc without ``out=``, which refuses them in its own words."""

    def variant(ins, outs, attrs, meta):
        x, y = ins["X"], ins["Y"]
        y = y.reshape(meta.args[0]) if meta.args else y
        outs["Out"] = fresh_output(fn(x, y), meta.outputs["Out"], (x, y))

    return variant


def _unary(fn):
    def variant(ins, outs, attrs, meta):
        fn(ins["X"], out=outs["Out"])

    return variant


def _aligned(fn):
    def variant(ins, outs, attrs, meta):
        fn(ins["X"], ins["Y"].reshape(meta.args[0]), out=outs["Out"])

    return variant


def near(x, y, paddle2):
    """Fluid 1.8's EqualFunctor of floats: |x - y| (the difference in their dtype) < 1e-8, taken in double, so an
    infinity equals nothing; ``paddle2``: Paddle 2.6's (phi compare_functors.h), where an infinity (as a float32)
    equals only itself and a NaN nothing."""
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(np.subtract(x, y).astype(np.float64)) < 1e-8
        if not paddle2:
            return close
        inf = np.isinf(np.asarray(x, np.float32)) | np.isinf(np.asarray(y, np.float32))
        return np.where(inf, np.equal(x, y), close)  # (NaN: close is False already)


def _near(paddle2, negate):
    def variant(ins, outs, attrs, meta):
        x, y = ins["X"], ins["Y"]
        equal = near(x, y.reshape(meta.args[0]) if meta.args else y, paddle2)
        if negate:
            np.logical_not(equal, out=outs["Out"])
        else:
            outs["Out"][...] = equal

    return variant


def _flag(found):
    def variant(ins, outs, attrs, meta):
        outs["Out"][0] = found(ins["X"])

    return variant


def _equal_all(ins, outs, attrs, meta):
    """Paddle 2.6's equal_all: X and Y of one shape, each pair equal as its equal op has them (floats: ``near``)."""
    x, y = ins["X"], ins["Y"]
    floats = np.result_type(x, y).kind == "f"
    outs["Out"][()] = x.shape == y.shape and bool(np.all(near(x, y, True) if floats else x == y))


def _operands(op, table, meta, slots, variants=("ufunc",)):
    """A planned step's arguments of the loop of one of ``variants`` (each operand's flat values and its step: 1
    where it holds Out's number of values, in Out's order; 0 where it holds one), and Out; None for another
    variant, operands of two dtypes or of one the loops do not take, or one broadcast along some axes only."""
    out, names = one(op, "Out", "outputs"), [one(op, slot) for slot in slots]
    if meta.variant not in variants or out is None or None in names or any(n not in table for n in (*names, out)):
        return None
    dtypes, size = {table[n][1] for n in names}, math.prod(table[out][0])
    if len(dtypes) != 1 or not dtypes <= PLAIN:
        return None
    args = []
    for name in names:
        count = math.prod(table[name][0])
        if count not in (size, 1):
            return None
        args += [flat(table, name), ("const", 1 if count == size else 0)]
    return (args * 2 if len(names) == 1 else args), out


def _compare_launches(op, table, meta):
    """compare (or logical: the logical ops) of _logic_loops over X and Y as _operands gives them."""
    found = _operands(op, table, meta, ("X",) if op.type == "logical_not" else ("X", "Y"))
    if found is None:
        return None
    args, out = found
    loop = _logic_loops().logical if op.type.startswith("logical_") else _logic_loops().compare
    return [Launch(loop, [*args, ("const", _CODES[op.type]), flat(table, out)], writes=[out])]


def _near_launches(op, table, meta):
    """equal's and not_equal's "near" and "near_paddle2" (floats of one dtype: ``near``'s rules) by
    _logic_loops.near; the other variants compare's."""
    if meta.variant == "ufunc":
        return _compare_launches(op, table, meta)
    found = _operands(op, table, meta, ("X", "Y"), ("near", "near_paddle2"))
    if found is None or table[one(op, "X")][1].kind != "f":
        return None
    args, out = found
    flags = [("const", meta.variant == "near_paddle2"), ("const", op.type == "not_equal")]
    return [Launch(_logic_loops().near, [*args, *flags, flat(table, out)], writes=[out])]


_COMPARE = {
    "less_than": np.less,
    "less_equal": np.less_equal,
    "greater_than": np.greater,
    "greater_equal": np.greater_equal,
    "equal": np.equal,
    "not_equal": np.not_equal,
}
_BINARY = {
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    **{op: fn for op, fn in meta_rules.BITWISE.items() if op != "bitwise_not"},
}
_UNARY = {
    "logical_not": np.logical_not,
    "bitwise_not": np.invert,
    "isfinite_v2": np.isfinite,
    "isinf_v2": np.isinf,
    "isnan_v2": np.isnan,
}
_FLAGS = {
    "isfinite": lambda x: np.isfinite(x).all(),
    "isinf": lambda x: np.isinf(x).any(),
    "isnan": lambda x: np.isnan(x).any(),
}
OUT = {
    **{
        op: by_variant(f"{op}_out", _compare_launches, ufunc=_ufunc(fn), aligned=_aligned(fn), numpy=_refused(fn))
        for op, fn in _COMPARE.items()
        if op not in ("equal", "not_equal")
    },
    **{
        op: by_variant(
            f"{op}_out",
            _near_launches,
            ufunc=_ufunc(fn),
            aligned=_aligned(fn),
            numpy=_refused(fn),
            near=_near(False, op == "not_equal"),
            near_paddle2=_near(True, op == "not_equal"),
        )
        for op, fn in _COMPARE.items()
        if op in ("equal", "not_equal")
    },
    **{
        op: by_variant(f"{op}_out", _compare_launches if op in _CODES else None, ufunc=_ufunc(fn), numpy=_refused(fn))
        for op, fn in _BINARY.items()
    },
    **{
        op: by_variant(f"{op}_out", _compare_launches if op in _CODES else None, ufunc=_unary(fn))
        for op, fn in _UNARY.items()
    },
    **{op: by_variant(f"{op}_out", None, reduce=_flag(fn)) for op, fn in _FLAGS.items()},
    "equal_all": by_variant("equal_all_out", None, reduce=_equal_all),
}


def _close(x, y):
    """Fluid's EqualReduceFunctor: floats within 1e-8 (their difference in X's dtype), others exactly."""
    if np.issubdtype(np.result_type(x, y), np.floating):
        return np.abs((x - y).astype(np.float64)) < 1e-8
    return np.equal(x, y)


def _equal_reduce(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    outs["Out"][0] = np.all(_close(x, align(x, y, attrs.get("axis", -1))))


def _allclose(ins, outs, attrs, meta):
    """Fluid's rule, in Input's dtype: |x - y| <= atol + rtol * |y| everywhere; with equal_nan, NaNs at the same
    places and every other element close."""
    x, y = ins["Input"], ins["Other"]
    t = x.dtype.type
    with np.errstate(invalid="ignore"):
        close = np.abs(x - y) <= t(float(attrs["atol"])) + t(float(attrs["rtol"])) * np.abs(y)
    if attrs["equal_nan"]:
        x_nan, y_nan = np.isnan(x), np.isnan(y)
        outs["Out"][...] = bool(np.all(x_nan == y_nan) and np.all(close != x_nan))
    else:
        outs["Out"][...] = bool(np.all(close))


def _allclose_paddle2(ins, outs, attrs, meta):
    """Paddle 2.6's AllCloseKernel (phi/kernels/cpu/allclose_kernel.cc): an element is close where Input == Other,
    or |a - b| <= atol + rtol |b| (the bound taken in double, then Input's dtype), or within 1e-15 of that bound; a
    NaN on either side: close only with equal_nan, both NaN. Out: whether every element is close."""
    a, b = ins["Input"], ins["Other"]
    rtol, atol = float(attrs["rtol"]), float(attrs["atol"])
    with np.errstate(invalid="ignore", over="ignore"):
        left = np.abs(a - b)
        right = (atol + rtol * np.abs(b).astype(np.float64)).astype(a.dtype)
        close = (a == b) | (left <= right) | (np.abs(left - right).astype(np.float64) <= 1e-15)
    if a.dtype.kind == "f":  # (Paddle's kernel takes float32 and float64; pe's ints have no NaN)
        nan_a, nan_b = np.isnan(a), np.isnan(b)
        close = np.where(nan_a | nan_b, (nan_a == nan_b) & bool(attrs["equal_nan"]), close)
    outs["Out"][...] = bool(np.all(close))


def _isclose(ins, outs, attrs, meta):
    """Paddle 2.6's IscloseFunctor, in Input's dtype: a == b, or |a - b| <= atol + rtol |b|, or within 1e-15 of
    that bound; a NaN on either side: close only with equal_nan, both NaN."""
    a, b = ins["Input"], ins["Other"]
    t = a.dtype.type if a.dtype.kind == "f" else np.float64
    rtol, atol = float(attrs["rtol"]), float(attrs["atol"])
    with np.errstate(invalid="ignore", over="ignore"):  # (the bound in double, then T, as Paddle's functor)
        left = np.abs(a - b)
        right = (atol + rtol * np.abs(b).astype(np.float64)).astype(t)
        close = (a == b) | (left <= right) | (np.abs(left - right).astype(np.float64) <= 1e-15)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    either = nan_a | nan_b
    result = np.where(either, (nan_a == nan_b) & bool(attrs["equal_nan"]), close)
    outs["Out"] = fresh_output(result, meta.outputs["Out"], (a, b))


OUT["equal_reduce"] = by_variant("equal_reduce_out", None, reduce=_equal_reduce)
OUT["allclose"] = by_variant("allclose_out", None, reduce=_allclose, paddle2_rule=_allclose_paddle2)
OUT["isclose"] = by_variant("isclose_out", None, numpy=_isclose)

_KERNELS = {op: adapter(meta_rules.META[op], out, op) for op, out in OUT.items()}

# the ops' kernels, for CUDA's host fallbacks (kernels/cuda/logic.py's HOST_OPS)
less_than, less_equal, greater_than = _KERNELS["less_than"], _KERNELS["less_equal"], _KERNELS["greater_than"]
greater_equal, equal, not_equal = _KERNELS["greater_equal"], _KERNELS["equal"], _KERNELS["not_equal"]
logical_not, logical_and = _KERNELS["logical_not"], _KERNELS["logical_and"]
logical_or, logical_xor = _KERNELS["logical_or"], _KERNELS["logical_xor"]
bitwise_not, bitwise_and = _KERNELS["bitwise_not"], _KERNELS["bitwise_and"]
bitwise_or, bitwise_xor = _KERNELS["bitwise_or"], _KERNELS["bitwise_xor"]
isfinite_v2, isinf_v2, isnan_v2 = _KERNELS["isfinite_v2"], _KERNELS["isinf_v2"], _KERNELS["isnan_v2"]
equal_all = _KERNELS["equal_all"]
equal_reduce, allclose, isclose = _KERNELS["equal_reduce"], _KERNELS["allclose"], _KERNELS["isclose"]
