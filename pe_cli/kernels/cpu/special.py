"""The special family's CPU kernels: kernels/special_math.py's scalar functions as numba ufuncs over
float64 (compiled on first use and cached), the results rounded to the input's dtype; expm1 is
numpy's, nextafter numpy's in the inputs' dtype (nextafterf for float32, as Paddle).

Structured (pe_cli/shapes/structured.py): ``FORWARD[op]`` and ``GRAD[op]`` (of ``<op>_grad``), ``out(ins, outs,
attrs, meta)``, compute the variant the op's meta rule chose (pe_cli/shapes/special.py) into the buffers they are
handed: "ufunc" (a function's compiled float64 ufunc, X cast to float64 and its values cast into Out, as numpy's
buffered casts do; numpy's expm1 and nextafter) and "ints" (expm1 of ints as float32) through ``out=``;
"product" (a gradient: Out@GRAD times the derivative, through np.multiply's ``out=``); "numpy" and "array": the
array the form made, handed over (fresh variants, kernels/structured.fresh_output)."""

import functools

import numpy as np

from ...base.activations import bind
from ...shapes import special as meta_rules
from .. import special_math
from ..structured import adapter, fresh_output
from .launches import by_variant
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
    """The numpy ufunc numba compiles of special_math's ``name`` (one float64 argument, or two for polygamma): its
    loop called as numpy's (numba's dynamic ufunc around it costs 2 us a call more; it is only ever given float64)."""
    import numba

    install()
    fn = bind(special_math.python(name), **_helpers())
    sig = "float64(float64, float64)" if name == "_polygamma" else "float64(float64)"
    compiled = numba.vectorize([sig], cache=True, nopython=True)(fn)
    return getattr(compiled, "ufunc", compiled)


def _apply(name, x, *extra):
    """special_math's ``name`` of every element of x (in float64), in x's dtype."""
    x64 = np.asarray(x, dtype=np.float64)
    key = _UNARY.get(name, name)
    with np.errstate(all="ignore"):
        return np.asarray(_ufunc(key)(*extra, x64) if extra else _ufunc(key)(x64)).astype(x.dtype, copy=False)


def _apply_into(name, x, out, *extra):
    """special_math's ``name`` of every element of x, in float64 (x's values cast to it), each written into ``out``
    cast to its dtype (x's), as ``_apply``'s astype casts them: one buffered pass, no array made."""
    key = _UNARY.get(name, name)
    with np.errstate(all="ignore"):
        _ufunc(key)(*extra, x, out=out, dtype=np.float64, casting="unsafe")


def _extra(op, attrs):
    """polygamma's order, the ufunc's first argument; nothing for the others."""
    return (float(attrs["n"]),) if op == "polygamma" else ()


_FUNCTION = {"polygamma": "_polygamma"}  # (the function an op computes, where it is not the op's name)


def _unary_out(op):
    x_slot, out_slot = meta_rules.UNARY[op]
    name = _FUNCTION.get(op, op)

    def ufunc(ins, outs, attrs, meta):
        _apply_into(name, ins[x_slot], outs[out_slot], *_extra(op, attrs))

    return by_variant(f"{op}_out", None, ufunc=ufunc)


# op -> the derivative of its grad op, of (the slot it reads, attrs): special_math's function of it, in its dtype
_DERIVATIVES = {
    "digamma": lambda a, attrs: _apply("_polygamma", a, 1.0),
    "lgamma": lambda a, attrs: _apply("digamma", a),
    "polygamma": lambda a, attrs: _apply("_polygamma", a, float(attrs["n"]) + 1.0),
    "erfinv": lambda a, attrs: _apply("erfinv_derivative", a),
    "i0": lambda a, attrs: _apply("i1", a),
    "i0e": lambda a, attrs: _apply("i0e_derivative", a),
    "i1": lambda a, attrs: _apply("i1_derivative", a),
    "i1e": lambda a, attrs: _apply("i1e_derivative", a),
    "expm1": lambda out, attrs: out + out.dtype.type(1),
}


def _grad_out(op):
    (reads, dslot, slot), derivative = meta_rules.grad_slots(op), _DERIVATIVES[op]

    def product(ins, outs, attrs, meta):
        np.multiply(ins[dslot], derivative(ins[reads], attrs), out=outs[slot])

    def array(ins, outs, attrs, meta):
        dout = ins[dslot]
        outs[slot] = fresh_output(dout * derivative(ins[reads], attrs), meta.outputs[slot], tuple(ins.values()))

    return by_variant(f"{op}_grad_out", None, product=product, array=array)


def _expm1_ufunc(ins, outs, attrs, meta):
    np.expm1(ins["X"], out=outs["Out"])


def _expm1_ints(ins, outs, attrs, meta):
    np.expm1(ins["X"].astype(np.float32), out=outs["Out"])


def _expm1_numpy(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(np.expm1(ins["X"]), meta.outputs["Out"], (ins["X"],))


def _nextafter_ufunc(ins, outs, attrs, meta):
    x = ins["x"]
    np.nextafter(x, ins["y"].astype(x.dtype, copy=False), out=outs["out"])


def _nextafter_numpy(ins, outs, attrs, meta):
    x, y = ins["x"], ins["y"]
    outs["out"] = fresh_output(np.nextafter(x, y.astype(x.dtype, copy=False)), meta.outputs["out"], (x, y))


FORWARD = {op: _unary_out(op) for op in meta_rules.UNARY}
FORWARD["expm1"] = by_variant("expm1_out", None, ufunc=_expm1_ufunc, ints=_expm1_ints, numpy=_expm1_numpy)
FORWARD["nextafter"] = by_variant("nextafter_out", None, ufunc=_nextafter_ufunc, numpy=_nextafter_numpy)
GRAD = {op: _grad_out(op) for op in meta_rules.GRAD}

# nextafter's kernel by name, for CUDA's host fallback (kernels/cuda/special.py's HOST_OPS)
nextafter = adapter(meta_rules.FORWARD["nextafter"], FORWARD["nextafter"], "nextafter")
