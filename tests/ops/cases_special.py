"""Op cases for family special: digamma, lgamma, polygamma, erfinv, expm1, i0, i0e, i1, i1e, nextafter.
References are independent of kernels/special_math.py: lgamma is math.lgamma, digamma its central
difference, polygamma the series (-1)^(n+1) n! sum 1/(x + k)^(n+1) summed far and its tail integrated,
erfinv math.erf inverted by bisection, I0 numpy's i0, I1 and the scaled forms the integrals
(1/pi) int_0^pi e^(x cos t) cos(nu t) dt by the trapezoid rule (exact to rounding for this periodic
integrand); the values at poles, +-inf and beyond erfinv's domain are Paddle 2.6.2's (recorded by
running it)."""

import math

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(76)
_T = np.linspace(0.0, np.pi, 4001)


def _elementwise(fn):
    return lambda x: np.vectorize(fn, otypes=[np.float64])(np.asarray(x, np.float64))


def _digamma(v):
    h = 1e-5
    return (math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h)


def _polygamma(n, v):
    k = np.arange(200000, dtype=np.float64)
    end = v + k[-1] + 1
    tail = end**-n / n + 0.5 * end ** -(n + 1)
    return (-1) ** (n + 1) * math.factorial(n) * (np.sum((v + k) ** -(n + 1)) + tail)


def _erfinv(v):
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.erf(mid) < v else (lo, mid)
    return 0.5 * (lo + hi)


def _bessel_scaled(v, nu):
    """e^-|v| I_nu(v) by the integral."""
    f = np.exp(abs(v) * (np.cos(_T) - 1)) * np.cos(nu * _T)
    return np.trapezoid(f, _T) / np.pi * (np.sign(v) if nu == 1 else 1.0)


lgamma_ref, digamma_ref, erfinv_ref = _elementwise(math.lgamma), _elementwise(_digamma), _elementwise(_erfinv)
i0e_ref = _elementwise(lambda v: _bessel_scaled(v, 0))
i1e_ref = _elementwise(lambda v: _bessel_scaled(v, 1))


def _off_poles(shape, low, high):
    """Values in [low, high) at least 0.15 from every integer (the poles of digamma and polygamma)."""
    x = rng.uniform(low, high, shape)
    frac = x - np.floor(x)
    return np.floor(x) + 0.15 + frac * 0.7


def _case(op, ref, x, lower=False, grad=True, **kw):
    xs, outs = ("x", "out") if lower else ("X", "Out")
    return OpCase(op, {xs: x}, lambda i, a: {outs: ref(i[xs])}, grad=(xs,) if grad else (), **kw)


_MIXED = _off_poles((2, 3), -3.0, 4.0)
_EDGES = np.array([-2.0, 0.0, -np.inf, np.inf, np.nan, 2.5])
_BESSEL = np.array([[-31.5, -2.5, -0.4, 0.3], [1.0, 7.5, 29.0, 40.0]])
_SMALL = np.array([[-4.5, -0.4, 0.3, 2.0]])

CASES = [
    _case("lgamma", lgamma_ref, _MIXED, rtol=1e-12, atol=1e-12),
    _case(
        "lgamma",
        lambda x: np.array([np.inf, np.inf, np.inf, np.inf, np.nan, math.lgamma(2.5)]),
        _EDGES,
        grad=False,
        name="lgamma_poles_and_infinities",
    ),
    _case("digamma", digamma_ref, _MIXED, rtol=1e-7, atol=1e-8),
    _case(
        "digamma",
        lambda x: np.array([np.nan, np.nan, np.nan, np.inf, np.nan, _digamma(2.5)]),
        _EDGES,
        grad=False,
        rtol=1e-7,
        name="digamma_poles_and_infinities",
    ),
    OpCase(
        "polygamma",
        {"x": _MIXED},
        lambda i, a: {"out": _elementwise(lambda v: _polygamma(1, v))(i["x"])},
        grad=("x",),
        rtol=1e-9,
    ),
    OpCase(
        "polygamma",
        {"x": _off_poles((2, 2), -2.0, 3.0)},
        lambda i, a: {"out": _elementwise(lambda v: _polygamma(3, v))(i["x"])},
        attrs={"n": 3},
        grad=("x",),
        rtol=1e-9,
        name="polygamma_n3",
    ),
    OpCase(
        "polygamma",
        {"x": _EDGES},
        lambda i, a: {"out": np.array([-np.inf, -np.inf, -np.inf, np.nan, np.nan, _polygamma(2, 2.5)])},
        attrs={"n": 2},
        rtol=1e-9,
        name="polygamma_poles_and_infinities",
    ),
    _case("erfinv", erfinv_ref, rng.uniform(-0.95, 0.95, (2, 3)), rtol=1e-12, atol=1e-14),
    _case(
        "erfinv",
        lambda x: np.array([-np.inf, -np.inf, np.inf, np.inf, np.nan, 0.0]),
        np.array([-1.5, -1.0, 1.0, 3.0, np.nan, 0.0]),
        grad=False,
        name="erfinv_outside_its_domain",
    ),
    _case("expm1", np.expm1, np.array([[-3.0, -1e-9, 0.0, 2e-8, 0.7, 2.0]])),
    _case(
        "expm1",
        lambda x: np.expm1(x.astype(np.float32)),
        np.array([[-1, 0, 2]], np.int64),
        grad=False,
        name="expm1_int64_gives_float32",
    ),
    _case("i0", lambda x: np.i0(x), _BESSEL, lower=True, grad=False, rtol=1e-12, name="i0_large"),
    _case("i0", lambda x: np.i0(x), _SMALL, lower=True, rtol=1e-12),
    _case("i0e", i0e_ref, _BESSEL, lower=True, rtol=1e-12),
    _case("i1", lambda x: i1e_ref(x) * np.exp(np.abs(x)), _BESSEL, lower=True, grad=False, rtol=1e-12, name="i1_large"),
    _case("i1", lambda x: i1e_ref(x) * np.exp(np.abs(x)), _SMALL, lower=True, rtol=1e-12),
    _case("i1e", i1e_ref, _BESSEL, lower=True, rtol=1e-12),
    _case(
        "i1",
        lambda x: np.array([np.nan, np.nan, 0.0]),
        np.array([-np.inf, np.inf, 0.0]),
        lower=True,
        grad=False,
        name="i1_at_infinities",
    ),
    _case(
        "i1e",
        lambda x: np.array([-0.0, 0.0, 0.0]),
        np.array([-np.inf, np.inf, 0.0]),
        lower=True,
        grad=False,
        name="i1e_at_infinities",
    ),
    OpCase(
        "nextafter",
        {
            "x": np.array([[1.0, 0.0, -1.0], [2.0, 5.0, 0.0]], np.float32),
            "y": np.array([[2.0, 1.0, -2.0], [2.0, 0.0, -1.0]], np.float32),
        },
        lambda i, a: {"out": np.nextafter(i["x"], i["y"])},
        rtol=0,
        atol=0,
    ),
    OpCase(
        "nextafter",
        {"x": np.array([1.0, 0.0]), "y": np.array([2.0, -1.0])},
        lambda i, a: {"out": np.array([1.0000000000000002, -5e-324])},
        rtol=0,
        atol=0,
        name="nextafter_float64",
    ),
]
