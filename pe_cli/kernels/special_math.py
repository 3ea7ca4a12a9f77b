"""Special functions on one float64 scalar, the shared math of the special family's kernels (digamma,
lgamma, polygamma, erfinv, the modified Bessel functions I0 and I1 and their scaled forms): plain Python
over ``math``, which the CPU kernels compile with numba (kernels/cpu/special.py) and the CUDA kernels as
device functions (kernels/cuda/special.py), each function's helpers bound to that device's compiled ones
(``compiled``). No numba here; every branch is safe to run as Python too (the CUDA simulator runs it), so
no domain error or overflow reaches ``math``.

Values at the edges follow Paddle 2.6.2's kernels (Eigen's and Cephes'): digamma is NaN at 0, the
negative integers and -inf; lgamma is +inf there; polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) with
Hurwitz's zeta (Euler-Maclaurin, as Cephes), +inf at those poles and NaN at +inf; erfinv is +-inf for
|x| >= 1; I0 and I1 are NaN at +-inf while their scaled forms are 0 there."""

import math

from ..base.activations import bind

_INF, _NAN = math.inf, math.nan
_EPS = 1.1102230246251565e-16
# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin corrections of Hurwitz's zeta
_ZETA_A = (
    12.0,
    -720.0,
    30240.0,
    -1209600.0,
    47900160.0,
    -1.8924375803183791606e9,
    7.47242496e10,
    -2.950130727918164224e12,
    1.1646782814350067249e14,
    -4.5979787224074726105e15,
    1.8152105401943546773e17,
    -7.1661652561756670113e18,
)


def _is_pole(x):
    """x is 0, a negative integer or -inf (where digamma, lgamma and polygamma have their poles)."""
    return x == -_INF or (x <= 0.0 and math.floor(x) == x)


def _lgamma(x):
    if x != x:
        return _NAN
    if x == _INF or _is_pole(x):
        return _INF
    return math.lgamma(x)


def _digamma(x):
    """psi(x): the reflection psi(x) = psi(1 - x) - pi / tan(pi x) below 0, the recurrence
    psi(x) = psi(x + 1) - 1/x up to 10, then the asymptotic series."""
    if x != x or _is_pole(x):
        return _NAN
    if x == _INF:
        return _INF
    result = 0.0
    if x < 0.0:
        result = -math.pi / math.tan(math.pi * (x - math.floor(x)))
        x = 1.0 - x
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    tail = f * (
        -1.0 / 12
        + f
        * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760 + f * (-1.0 / 12))))))
    )
    return result + math.log(x) - 0.5 / x + tail


def _zeta(s, q):
    """Hurwitz's zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1 (an integer here): the terms up
    to q + N >= 9 summed, the rest by Euler-Maclaurin (Cephes' algorithm)."""
    if s != s or q != q or q == _INF:
        return _NAN
    if q <= 0.0 and (q == -_INF or math.floor(q) == q):
        return _INF
    total = math.pow(q, -s)
    a, b, i = q, 0.0, 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = math.pow(a, -s)
        total += b
        if abs(b) < _EPS * abs(total):
            return total
    w = a
    total += b * w / (s - 1.0) - 0.5 * b
    fact, k = 1.0, 0.0
    for j in range(12):
        fact *= s + k
        b /= w
        t = fact * b / _ZETA_A[j]
        total += t
        if abs(t) < _EPS * abs(total):
            break
        k += 1.0
        fact *= s + k
        b /= w
        k += 1.0
    return total


def _polygamma(n, x):
    """The n-th derivative of digamma; n = 0 is digamma."""
    if n == 0.0:
        return _digamma(x)
    sign = 1.0 if n - 2.0 * math.floor(0.5 * n) == 1.0 else -1.0
    return sign * math.exp(math.lgamma(n + 1.0)) * _zeta(n + 1.0, x)


def _erfinv(x):
    """The inverse of erf: +-inf at and beyond +-1 (as Paddle's ndtri((x + 1) / 2) / sqrt(2)), else a
    rational first guess refined by Newton's steps on erf (erfc near the ends, no cancellation)."""
    if x != x:
        return _NAN
    if x >= 1.0:
        return _INF
    if x <= -1.0:
        return -_INF
    a = abs(x)
    w = -math.log((1.0 - a) * (1.0 + a))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        for c in (
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ):
            p = c + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        for c in (
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ):
            p = c + p * w
    y = p * a
    for _ in range(3):
        err = (1.0 - a) - math.erfc(y) if a > 0.5 else math.erf(y) - a
        y -= err / (1.1283791670955126 * math.exp(-y * y))
    return y if x >= 0.0 else -y


def _bessel_scaled(ax, nu):
    """e^-ax I_nu(ax) for ax >= 0 and nu 0 or 1: the power series up to 30, the asymptotic series of
    e^-x I_nu(x) beyond (terms (4 nu^2 - (2k - 1)^2) / (8 k x) each times the last)."""
    if ax <= 30.0:
        half = 0.5 * ax
        term = 1.0 if nu == 0 else half
        total, k = term, 1.0
        while term > _EPS * total * 0.1:
            term *= half * half / (k * (k + nu))
            total += term
            k += 1.0
        return total * math.exp(-ax)
    mu = 4.0 * nu * nu
    term, total, k = 1.0, 1.0, 1.0
    while k < 60.0:
        term *= -(mu - (2.0 * k - 1.0) ** 2) / (8.0 * k * ax)
        total += term
        if abs(term) < _EPS * abs(total):
            break
        k += 1.0
    return total / math.sqrt(2.0 * math.pi * ax)


def _i0e(x):
    if x != x:
        return _NAN
    if x == _INF or x == -_INF:
        return 0.0
    return _bessel_scaled(abs(x), 0)


def _i1e(x):
    if x != x:
        return _NAN
    if x == _INF:
        return 0.0
    if x == -_INF:
        return -0.0
    v = _bessel_scaled(abs(x), 1)
    return -v if x < 0.0 else v


def _unscaled(scaled, x):
    """scaled * e^|x|, +-inf past float64's range; NaN at +-inf (as Paddle's I0 and I1)."""
    if x != x or x == _INF or x == -_INF:
        return _NAN
    if abs(x) > 700.0:
        half = math.exp(0.5 * abs(x))
        return scaled * half * half
    return scaled * math.exp(abs(x))


def _i0(x):
    return _unscaled(_i0e(x), x)


def _i1(x):
    return _unscaled(_i1e(x), x)


# -- the derivatives the gradient kernels use ----------------------------------------------------


def _i0e_derivative(x):
    """d/dx e^-|x| I0(x) = i1e(x) - sign(x) i0e(x), -1 at 0 (the right derivative, as Paddle)."""
    s = -1.0 if x < 0.0 else 1.0
    return _i1e(x) - s * _i0e(x)


def _i1_derivative(x):
    """I1'(x) = I0(x) - I1(x) / x, 1/2 at 0."""
    if x == 0.0:
        return 0.5
    return _i0(x) - _i1(x) / x


def _i1e_derivative(x):
    """d/dx e^-|x| I1(x) = i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0."""
    if x == 0.0:
        return 0.5
    s = 1.0 if x > 0.0 else -1.0
    return _i0e(x) - _i1e(x) * (s + 1.0 / x)


def _erfinv_derivative(out):
    """d erfinv / dx from the output: sqrt(pi) / 2 e^(out^2) (+inf where out^2 overflows)."""
    if out != out:
        return _NAN
    if out * out > 709.0:
        return _INF
    return 0.886226925452758 * math.exp(out * out)


# Dependency order: each function's helpers come before it.
_ORDER = (
    "_is_pole",
    "_lgamma",
    "_digamma",
    "_zeta",
    "_polygamma",
    "_erfinv",
    "_bessel_scaled",
    "_i0e",
    "_i1e",
    "_unscaled",
    "_i0",
    "_i1",
    "_i0e_derivative",
    "_i1_derivative",
    "_i1e_derivative",
    "_erfinv_derivative",
)


def compiled(jit):
    """{name: jit(function)} for every function above, each calling its helpers' compiled versions."""
    done = {}
    for name in _ORDER:
        done[name] = jit(bind(globals()[name], **done))
    return done


def python(name):
    """The plain Python function ``name`` (its helpers plain Python too): the reference the cases check."""
    return globals()[name]
