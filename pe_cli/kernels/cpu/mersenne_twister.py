"""The 64-bit Mersenne Twister (C++'s ``std::mt19937_64``), the engine of Paddle 2.x's CPU random ops:
seeded from one integer (``engine.seed(n)``: what an op with its own ``seed`` attribute makes for each
run) or through ``std::seed_seq{n}`` (what ``paddle.seed(n)`` does to the default generator), and
drawn 312 values at a time in numpy. The state is the object's: the 312 words and the position in
them, plus the values a caller handed back unused (``put_back``), which the next draw returns first."""

import threading

import numpy as np

from .runtime.loops import lazy

_N, _M = 312, 156
_LOOP_FROM = 4096  # draws longer than this run numba's loop (_random_loops.mt_draw); shorter ones numpy
_loops = lazy("_random_loops")
_MASK64 = (1 << 64) - 1
_MASK32 = (1 << 32) - 1
_MATRIX = np.uint64(0xB5026F5AA96619E9)
_UPPER, _LOWER = np.uint64(0xFFFFFFFF80000000), np.uint64(0x7FFFFFFF)
_ONE, _ZERO = np.uint64(1), np.uint64(0)
_TEMPER = tuple(np.uint64(v) for v in (29, 0x5555555555555555, 17, 0x71D67FFFEDA60000, 37, 0xFFF7EEE000000000, 43))


def _words_from_int(seed):
    """The 312 words ``std::mt19937_64::seed(seed)`` starts from (seed taken modulo 2**64)."""
    words = [int(seed) & _MASK64]
    for i in range(1, _N):
        prev = words[-1]
        words.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK64)
    return words


def seed_seq_generate(seeds, count):
    """``std::seed_seq(seeds).generate`` of ``count`` 32-bit words (each seed taken modulo 2**32)."""
    v = [int(s) & _MASK32 for s in seeds]
    s, n = len(v), count
    b = [0x8B8B8B8B] * n
    t = 11 if n >= 623 else 7 if n >= 68 else 5 if n >= 39 else 3 if n >= 7 else (n - 1) // 2
    p = (n - t) // 2
    q = p + t
    m = max(s + 1, n)
    for k in range(m):
        x = b[k % n] ^ b[(k + p) % n] ^ b[(k - 1) % n]
        r1 = (1664525 * (x ^ (x >> 27))) & _MASK32
        r2 = (r1 + (s if k == 0 else (k % n + v[k - 1] if k <= s else k % n))) & _MASK32
        b[(k + p) % n] = (b[(k + p) % n] + r1) & _MASK32
        b[(k + q) % n] = (b[(k + q) % n] + r2) & _MASK32
        b[k % n] = r2
    for k in range(m, m + n):
        x = (b[k % n] + b[(k + p) % n] + b[(k - 1) % n]) & _MASK32
        r3 = (1566083941 * (x ^ (x >> 27))) & _MASK32
        r4 = (r3 - k % n) & _MASK32
        b[(k + p) % n] ^= r3
        b[(k + q) % n] ^= r4
        b[k % n] = r4
    return b


def _twist(mt):
    """The next 312 words from ``mt`` (the engine's recurrence, in three slices that depend only on
    words already computed)."""

    def mixed(high, low):
        y = (high & _UPPER) | (low & _LOWER)
        return (y >> _ONE) ^ np.where(y & _ONE, _MATRIX, _ZERO)

    new = np.empty_like(mt)
    new[:_M] = mt[_M:] ^ mixed(mt[:_M], mt[1 : _M + 1])
    new[_M : _N - 1] = new[: _N - 1 - _M] ^ mixed(mt[_M : _N - 1], mt[_M + 1 :])
    new[_N - 1] = new[_M - 1] ^ mixed(mt[_N - 1 :], new[:1])[0]
    return new


def _tempered(y):
    s1, m1, s2, m2, s3, m3, s4 = _TEMPER
    y = y ^ ((y >> s1) & m1)
    y = y ^ ((y << s2) & m2)
    y = y ^ ((y << s3) & m3)
    return y ^ (y >> s4)


class Mt19937_64:
    """One engine. ``lock``: held by a caller whose draws must not interleave with another thread's
    (a kernel drawing its whole output from the default generator's engine). ``paddle_engine``: what a
    meta rule, which imports no kernel module, tells it from a numpy Generator by (shapes/dropout.py)."""

    __slots__ = ("_words", "_next", "_back", "lock")
    paddle_engine = True

    def __init__(self, words, position=_N):
        self._words = np.array(words, dtype=np.uint64)
        self._next = position  # the next output's index in the words: 312, twist first
        self._back = None  # values handed back, drawn before the words
        self.lock = threading.RLock()

    @classmethod
    def from_int(cls, seed):
        """``std::mt19937_64 e; e.seed(seed)``: an op's own seed (C++ takes an int32 attribute, so
        -1 is 2**64 - 1)."""
        return cls(_words_from_int(seed))

    @classmethod
    def from_seed_seq(cls, seed):
        """``std::seed_seq seq({seed}); e.seed(seq)``: Paddle's generator after ``manual_seed(seed)``."""
        w = seed_seq_generate([seed], 2 * _N)
        return cls([w[2 * i] | (w[2 * i + 1] << 32) for i in range(_N)])

    def copy(self):
        other = Mt19937_64(self._words, self._next)
        other._back = None if self._back is None else self._back.copy()
        return other

    def draw(self, count):
        """The next ``count`` outputs (uint64)."""
        out = np.empty(count, np.uint64)
        done = 0
        if self._back is not None:
            done = min(count, len(self._back))
            out[:done] = self._back[:done]
            self._back = self._back[done:] if done < len(self._back) else None
        if count - done > _LOOP_FROM:
            self._next = _loops().mt_draw(self._words, self._next, out[done:])
            return out
        while done < count:
            if self._next == _N:
                self._words = _twist(self._words)
                self._next = 0
            take = min(count - done, _N - self._next)
            out[done : done + take] = _tempered(self._words[self._next : self._next + take])
            self._next += take
            done += take
        return out

    def put_back(self, values):
        """Hands back the last ``values`` drawn, unused: the next draw starts with them."""
        if len(values):
            back = np.asarray(values, dtype=np.uint64)
            self._back = back if self._back is None else np.concatenate([back, self._back])
