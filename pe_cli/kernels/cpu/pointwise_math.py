"""Kernels of the pointwise_math family (pe_cli/ops/pointwise_math.py): numpy expressions in the input's
dtype, the formulas of Paddle 2.6.2's phi kernels (activation_functor.h, elementwise_functor.h).

Structured (pe_cli/shapes/structured.py): ``FORWARD[op]`` and ``GRAD[op]`` (of ``<op>_grad``), ``out(ins, outs,
attrs, meta)``, compute the variant the op's meta rule chose (pe_cli/shapes/pointwise_math.py) into the buffers
they are handed: "ufunc", the op's numpy ufunc through its ``out=`` (tan, acosh, asinh, atanh, log2, log10, trunc,
conj; atan2 of floats, fmax, fmin); "zeros" (trunc's gradient); "array", "ints" and "numpy", the numpy forms below,
whose new arrays are the outputs (fresh variants, kernels/structured.fresh_output: cast to the output's dtype
where they differ, as the kernels always cast them). The ops' kernels by name (CUDA's host fallbacks,
kernels/cuda/pointwise_math.py) are these over their rules (kernels/structured.adapter)."""

import numpy as np

from ...base.activations_sigmoid import sigmoid_array
from ...shapes import pointwise_math as meta_rules
from ..common import table_getattr
from ..structured import adapter, fresh_output
from .elementwise import unbroadcast
from .launches import by_variant


def _c(x, v):
    return x.dtype.type(v)


def _attr(x, v):
    """A float attribute in x's dtype as Paddle holds it: a float32 (celu's alpha=0.7 is 0.699999988)."""
    return x.dtype.type(np.float32(v))


def _logit(x, a):
    """Paddle's LogitFunctor: X clipped to [eps, 1 - eps] (whatever eps), then log(p / (1 - p))."""
    eps = _attr(x, a["eps"])
    p = np.minimum(np.maximum(x, eps), _c(x, 1) - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p / (_c(x, 1) - p))


def _logit_grad(x, d, a):
    """0 where X lies outside [eps, 1 - eps], else dOut / (X (1 - X)) (LogitGradFunctor)."""
    eps = _attr(x, a["eps"])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x < eps) | (x > _c(x, 1) - eps), _c(x, 0), d / (x * (_c(x, 1) - x)))


def _celu(x, a):
    alpha = _attr(x, a["alpha"])
    with np.errstate(over="ignore"):
        return np.maximum(x, _c(x, 0)) + np.minimum(_c(x, 0), alpha * (np.exp(x / alpha) - _c(x, 1)))


def _celu_grad(x, d, a):
    """Paddle's CELUGradFunctor: dOut where X > 0 and alpha > 0 or X <= 0 and alpha < 0, else dOut exp(X / alpha)."""
    alpha = _attr(x, a["alpha"])
    with np.errstate(over="ignore"):
        return np.where((x > 0) == (alpha > 0), d, d * np.exp(x / alpha))


# name -> (forward(x, attrs), derivative(x, dout, attrs))
UNARY = {
    "silu": (
        lambda x, a: x * sigmoid_array(x),
        lambda x, d, a: d * sigmoid_array(x) * (_c(x, 1) + x * (_c(x, 1) - sigmoid_array(x))),
    ),
    "celu": (_celu, _celu_grad),
    "tan": (lambda x, a: np.tan(x), lambda x, d, a: d / np.square(np.cos(x))),
    "acosh": (lambda x, a: np.arccosh(x), lambda x, d, a: d / np.sqrt(x * x - _c(x, 1))),
    "asinh": (lambda x, a: np.arcsinh(x), lambda x, d, a: d / np.sqrt(x * x + _c(x, 1))),
    "atanh": (lambda x, a: np.arctanh(x), lambda x, d, a: d / (_c(x, 1) - x * x)),
    "log2": (lambda x, a: np.log2(x), lambda x, d, a: d / (x * _c(x, np.log(2.0)))),
    "log10": (lambda x, a: np.log10(x), lambda x, d, a: d / (x * _c(x, np.log(10.0)))),
    "trunc": (lambda x, a: np.trunc(x), None),  # (its gradient: 0, written into X@GRAD)
    "conj": (lambda x, a: np.conj(x), lambda x, d, a: np.conj(d)),
    "logit": (_logit, _logit_grad),
}


def _atan2(ins, attrs):
    """Integers: atan2 in float32, given as float64 (Paddle's Atan2Functor of int32/int64)."""
    x1, x2 = ins["X1"], ins["X2"]
    if x1.dtype.kind == "f":
        return {"Out": np.arctan2(x1, x2)}
    x1, x2 = x1.astype(np.float32).astype(np.float64), x2.astype(np.float32).astype(np.float64)
    return {"Out": np.arctan2(x1, x2).astype(np.float32).astype(np.float64)}


def _atan2_grad(ins, attrs):
    x1, x2, d = ins["X1"], ins["X2"], ins["Out@GRAD"]
    r = x1 * x1 + x2 * x2
    return {
        "X1@GRAD": unbroadcast(d * x2 / r, x1.shape).astype(x1.dtype, copy=False),
        "X2@GRAD": unbroadcast(-d * x1 / r, x2.shape).astype(x2.dtype, copy=False),
    }


def _elementwise_fmax(ins, attrs):
    return {"Out": np.fmax(ins["X"], ins["Y"])}


def _elementwise_fmin(ins, attrs):
    return {"Out": np.fmin(ins["X"], ins["Y"])}


def _pick_grad(ins, to_x):
    """Out@GRAD to X where ``to_x`` holds, else to Y, each summed to its input's shape."""
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    zero = _c(d, 0)
    return {
        "X@GRAD": unbroadcast(np.where(to_x, d, zero), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(np.where(to_x, zero, d), y.shape).astype(y.dtype, copy=False),
    }


def _elementwise_fmax_grad(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return _pick_grad(ins, (x >= y) | np.isnan(y))


def _elementwise_fmin_grad(ins, attrs):
    x, y = ins["X"], ins["Y"]
    return _pick_grad(ins, (x <= y) | np.isnan(y))


def _elementwise_heaviside(ins, attrs):
    x, y = ins["X"], ins["Y"]
    # Paddle's HeavisideFunctor: y where x == 0, else x > 0 (0 for a NaN x, where numpy's heaviside gives NaN)
    dtype = np.result_type(x, y)
    return {"Out": np.where(x == 0, y, x > 0).astype(dtype, copy=False)}


def _elementwise_heaviside_grad(ins, attrs):
    x, y, d = ins["X"], ins["Y"], ins["Out@GRAD"]
    return {
        "X@GRAD": unbroadcast(np.zeros_like(d), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(np.where(x == 0, d, _c(d, 0)), y.shape).astype(y.dtype, copy=False),
    }


def _lerp(ins, attrs):
    x, y, w = ins["X"], ins["Y"], ins["Weight"]
    return {"Out": (x + w * (y - x)).astype(x.dtype, copy=False)}


def _lerp_grad(ins, attrs):
    x, y, w, d = ins["X"], ins["Y"], ins["Weight"], ins["Out@GRAD"]
    return {
        "X@GRAD": unbroadcast(d * (_c(d, 1) - w), x.shape).astype(x.dtype, copy=False),
        "Y@GRAD": unbroadcast(d * w, y.shape).astype(y.dtype, copy=False),
    }


# -- structured: the out-kernels of the variants (shapes/pointwise_math.py) ------------------------------


def _fresh(compute):
    """A fresh variant: the arrays ``compute(ins, attrs)`` makes (a numpy form above, slot -> array) as the outputs."""

    def variant(ins, outs, attrs, meta):
        inputs = tuple(ins.values())
        for slot, value in compute(ins, attrs).items():
            outs[slot] = fresh_output(value, meta.outputs[slot], inputs)

    return variant


def _unary_forward(name):
    forward, ufunc = UNARY[name][0], meta_rules.UFUNCS.get(name)

    def ufunc_form(ins, outs, attrs, meta):
        with np.errstate(invalid="ignore", divide="ignore"):
            ufunc(ins["X"], out=outs["Out"])

    def array(ins, outs, attrs, meta):
        x = ins["X"]
        with np.errstate(invalid="ignore", divide="ignore"):
            outs["Out"] = fresh_output(forward(x, attrs), meta.outputs["Out"], (x,))

    variants = {"array": array} if ufunc is None else {"array": array, "ufunc": ufunc_form}
    return by_variant(f"{name}_out", None, **variants)


def _zeros(ins, outs, attrs, meta):
    outs["X@GRAD"].fill(0)


def _unary_grad(name):
    derivative = UNARY[name][1]

    def array(ins, outs, attrs, meta):
        x, dout = ins["X"], ins["Out@GRAD"]
        with np.errstate(invalid="ignore", divide="ignore"):
            outs["X@GRAD"] = fresh_output(derivative(x, dout, attrs), meta.outputs["X@GRAD"], (x, dout))

    return by_variant(f"{name}_grad_out", None, **({"zeros": _zeros} if derivative is None else {"array": array}))


def _ufunc(fn, slots):
    def variant(ins, outs, attrs, meta):
        fn(ins[slots[0]], ins[slots[1]], out=outs["Out"])

    return variant


_FORMS = {  # op -> (its numpy form, slot -> array; the ufunc its "ufunc" variant writes through, or None)
    "atan2": (_atan2, np.arctan2),
    "elementwise_fmax": (_elementwise_fmax, np.fmax),
    "elementwise_fmin": (_elementwise_fmin, np.fmin),
    "elementwise_heaviside": (_elementwise_heaviside, None),
    "lerp": (_lerp, None),
}
_GRAD_FORMS = {
    "atan2": _atan2_grad,
    "elementwise_fmax": _elementwise_fmax_grad,
    "elementwise_fmin": _elementwise_fmin_grad,
    "elementwise_heaviside": _elementwise_heaviside_grad,
    "lerp": _lerp_grad,
}


def _binary_forward(name):
    form, ufunc = _FORMS[name]
    fresh = _fresh(form)
    variants = {"numpy": fresh, "array": fresh, "ints": fresh}
    if ufunc is not None:
        variants["ufunc"] = _ufunc(ufunc, meta_rules.SLOTS[name])
    return by_variant(f"{name}_out", None, **variants)


FORWARD = {
    **{name: _unary_forward(name) for name in meta_rules.UNARY},
    **{name: _binary_forward(name) for name in meta_rules.SLOTS},
}
GRAD = {
    **{name: _unary_grad(name) for name in meta_rules.UNARY},
    **{name: by_variant(f"{name}_grad_out", None, array=_fresh(f)) for name, f in _GRAD_FORMS.items()},
}

# the ops' kernels by name, for CUDA's host fallbacks (kernels/cuda/pointwise_math.py's HOST_OPS)
_KERNELS = {name: adapter(meta_rules.FORWARD[name], out, name) for name, out in FORWARD.items()}
_KERNELS.update({f"{n}_grad": adapter(meta_rules.GRAD[n], out, f"{n}_grad") for n, out in GRAD.items()})
__getattr__ = table_getattr(_KERNELS, __name__)
