"""Paddle 2.6's CPU random distributions over its engine (mersenne_twister.py), value for value:

- uniform: libstdc++'s ``std::uniform_real_distribution<T>(min, max)``: ``(max - min) * u + min`` in T,
  where u is ``generate_canonical<T>``: one 64-bit output converted to T and divided by 2**64 (a 1
  becomes the float below 1);
- normal: ``std::normal_distribution<T>``: Marsaglia's polar method on pairs of uniforms in [-1, 1),
  a pair rejected until 0 < x² + y² <= 1, each accepted pair giving y·m then x·m (m =
  sqrt(-2 log(r²) / r²)); the second value of the last pair is dropped when the count is odd (the
  distribution lives for one kernel call);
- truncated normal: Paddle's own: a uniform in [FLT_MIN, 1) mapped into [Φ(-2), Φ(2)] and through
  √2·erfinv(2p - 1) (Paddle's rational erfinv), so mean ± 2 std without a redraw.

Each computes in the precision and the order C++ does (float32 with the float literals that promote
to double where C++'s do); the logarithms are the C library's (_random_loops.py)."""

import math

import numpy as np

from .mersenne_twister import Mt19937_64
from .runtime.loops import lazy

_loops = lazy("_random_loops")

_TWO_64 = 2.0**64


def engine(seed, default):
    """The engine a Paddle kernel draws from: a new one seeded with ``seed`` (``engine.seed(seed)``)
    where it is not 0, else ``default``, the default generator's."""
    return Mt19937_64.from_int(seed) if seed else default


def _canonical(raw, t):
    """generate_canonical<T, digits>(engine) of each 64-bit output ``raw``."""
    u = raw.astype(t) / t(_TWO_64)
    u[u >= 1] = np.nextafter(t(1), t(0))
    return u


def _log(x):
    out = np.empty_like(x)
    _loops().log_each(x, out)
    return out


def uniform(engine, count, low, high, t):
    """``count`` values of uniform_real_distribution<t>(low, high); low and high are Paddle's float attributes."""
    a, b = t(np.float32(low)), t(np.float32(high))
    return (b - a) * _canonical(engine.draw(count), t) + a


def _polar_pairs(engine, pairs, t):
    """(x, y, r²) of the first ``pairs`` accepted pairs; the engine advanced past the last one only."""
    xs, ys, rs, got = [], [], [], 0
    while got < pairs:
        want = pairs - got
        raw = engine.draw(2 * (want + want // 3 + 16))
        c = _canonical(raw, t)
        x, y = t(2) * c[0::2] - t(1), t(2) * c[1::2] - t(1)
        r2 = x * x + y * y
        ok = np.flatnonzero((r2 <= 1) & (r2 != 0))
        if len(ok) >= want:
            engine.put_back(raw[2 * (ok[want - 1] + 1) :])
            ok = ok[:want]
        xs.append(x[ok])
        ys.append(y[ok])
        rs.append(r2[ok])
        got += len(ok)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(rs)


def normal(engine, count, mean, std, t):
    """``count`` values of normal_distribution<t>(mean, std) (float attributes) drawn in one call."""
    pairs = (count + 1) // 2
    x, y, r2 = _polar_pairs(engine, pairs, t)
    mult = np.sqrt(t(-2) * _log(r2) / r2)
    out = np.empty(2 * pairs, t)
    out[0::2] = y * mult
    out[1::2] = x * mult
    return out[:count] * t(np.float32(std)) + t(np.float32(mean))


_CENTRAL = (
    (1.1975323115670912564578e0, 4.7072688112383978012285e1, 6.9706266534389598238465e2, 4.8548868893843886794648e3)
    + (1.6235862515167575384252e4, 2.3782041382114385731252e4, 1.1819493347062294404278e4, 8.8709406962545514830200e2),
    (1.0, 4.2313330701600911252e1, 6.8718700749205790830e2, 5.3941960214247511077e3)
    + (2.1213794301586595867e4, 3.9307895800092710610e4, 2.8729085735721942674e4, 5.2264952788528545610e3),
)
_NEAR = (
    (1.42343711074968357734e0, 4.63033784615654529590e0, 5.76949722146069140550e0, 3.64784832476320460504e0)
    + (1.27045825245236838258e0, 2.41780725177450611770e-1, 2.27238449892691845833e-2, 7.74545014278341407640e-4),
    (1.4142135623730950488016887e0, 2.9036514445419946173133295e0, 2.3707661626024532365971225e0)
    + (9.7547832001787427186894837e-1, 2.0945065210512749128288442e-1, 2.1494160384252876777097297e-2)
    + (7.7441459065157709165577218e-4, 1.4859850019840355905497876e-9),
)
_FAR = (
    (6.65790464350110377720e0, 5.46378491116411436990e0, 1.78482653991729133580e0, 2.96560571828504891230e-1)
    + (2.65321895265761230930e-2, 1.24266094738807843860e-3, 2.71155556874348757815e-5, 2.01033439929228813265e-7),
    (1.414213562373095048801689e0, 8.482908416595164588112026e-1, 1.936480946950659106176712e-1)
    + (2.103693768272068968719679e-2, 1.112800997078859844711555e-3, 2.611088405080593625138020e-5)
    + (2.010321207683943062279931e-7, 2.891024605872965461538222e-15),
)


def _ratio(r, coefficients, t):
    """num(r) / den(r): the two degree-7 polynomials in Horner's order, in t."""
    num, den = (np.full_like(r, t(c[7])) for c in coefficients)
    for k in range(6, -1, -1):
        num = num * r + t(coefficients[0][k])
        den = den * r + t(coefficients[1][k])
    return num, den


def erfinv(x, t):
    """Paddle's erfinv (a rational approximation in three ranges) of ``x`` in (-1, 1), in t as C++
    evaluates it (r of the central range and of the tails computed in double, then kept in t)."""
    out = np.empty_like(x)
    a = np.abs(x)
    mid = a <= 0.85
    xm = x[mid].astype(np.float64)
    r = (0.180625 - 0.25 * xm * xm).astype(t)
    num, den = _ratio(r, _CENTRAL, t)
    out[mid] = x[mid] * num / den
    tail = ~mid
    r = np.sqrt(float(t(math.log(2.0))) - _log(1.0 - a[tail].astype(np.float64))).astype(t)
    near = r <= 5.0
    value = np.empty_like(r)
    for where, shift, coefficients in ((near, 1.6, _NEAR), (~near, 5.0, _FAR)):
        num, den = _ratio((r[where].astype(np.float64) - shift).astype(t), coefficients, t)
        value[where] = num / den
    out[tail] = np.where(x[tail] < 0, -value, value)
    return out


def truncated_normal(engine, count, mean, std, t):
    """``count`` values of Paddle's truncated_gaussian_random (mean ± 2 std) in t."""
    bounds = [t((1.0 + math.erf(v / math.sqrt(2.0))) / 2.0) for v in (float(t(-2.0)), float(t(2.0)))]
    tiny = t(np.finfo(np.float32).tiny)
    u = (t(1.0) - tiny) * _canonical(engine.draw(count), t) + tiny
    p = bounds[0] + (bounds[1] - bounds[0]) * u
    e = erfinv(t(2) * p - t(1), t).astype(np.float64)
    return (math.sqrt(2.0) * e * float(t(np.float32(std))) + float(t(np.float32(mean)))).astype(t)


def _below(raw, span):
    """libstdc++'s (before GCC 11) uniform_int_distribution of one 64-bit output over [0, span): the
    output divided by floor((2**64 - 1) / span), outputs at or past span times that rejected. Returns
    (values, kept) for ``raw``."""
    scaling = np.uint64(((1 << 64) - 1) // span)
    kept = raw < np.uint64(span) * scaling
    return raw // scaling, kept


def integers(engine, count, low, high):
    """``count`` values of uniform_int_distribution(low, high - 1) (int64), Paddle's randint."""
    span = int(high) - int(low)
    parts, got = [], 0
    while got < count:
        want = count - got
        raw = engine.draw(want + 4)
        values, kept = _below(raw, span)
        kept = np.flatnonzero(kept)
        if len(kept) >= want:
            engine.put_back(raw[kept[want - 1] + 1 :])
            kept = kept[:want]
        parts.append(values[kept].astype(np.int64))
        got += len(kept)
    return np.concatenate(parts) + np.int64(low) if parts else np.empty(0, np.int64)


def permutation(engine, n):
    """std::shuffle of 0 .. n - 1 as libstdc++ (GCC 9-10) does it with a 64-bit engine: one output
    swapping two elements at a time (an even n swaps the second first, on its own); Paddle's randperm."""
    out = np.arange(n, dtype=np.int64)
    tries = n // 2 + 8
    while True:
        raw = engine.draw(tries)
        used = _loops().shuffle_two_at_a_time(raw, out)
        if used >= 0:
            engine.put_back(raw[used:])
            return out
        engine.put_back(raw)  # (rejections ran past the outputs drawn: again, with more)
        out = np.arange(n, dtype=np.int64)
        tries *= 2


def bernoulli(engine, p):
    """1 where a uniform_real_distribution<T>(0, 1) value is below the probability, else 0; Paddle's bernoulli."""
    t = p.dtype.type
    return (uniform(engine, p.size, 0.0, 1.0, t).reshape(p.shape) < p).astype(p.dtype)
