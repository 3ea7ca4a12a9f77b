"""numba loops of the scaled_dot_product_attention op (attention.py), imported on first use (see
runtime/loops.py): one (sample, head) pair at a time, its two products (forward) or four (gradient) by
single-threaded BLAS calls (runtime/cblas.py) on the pair's rows of Q, K, V and Out in place ([batch, seq,
heads, head_dim]: a row stride of heads * head_dim, no transposed copies), the softmax, or its
gradient, in between on the pair's [Sq, Sk] tile while it is in the core's cache. The ``_parallel``
twins give blocks of pairs to numba's threads: each pair is computed by the same code either way, so
one thread and two give the same bits.

The softmax is the softmax op's (_softmax_loops.py): the row's max subtracted, the shifted logits
clipped at ``floor`` (Fluid's -64), sums in float64. Its exponentials: for float32 a polynomial
(Cody-Waite reduction by ln 2 in two parts, Cephes' expf polynomial of degree 6, the power of two
written into the exponent bits) that LLVM vectorises, where numba's exp is a libm call an element;
within 2 ulp of the exact value over the clipped range [-64, 0] (tests/ops/cases_attention.py
checks it against numpy's exp); float64 calls exp."""

import math

import numba
import numpy as np
from numba import prange, uintp
from .runtime.numba_cache import install

install()  # numba's cache: pe's folder, read only where pe wrote it (before any loop is made)

_inline = numba.njit(inline="always")
ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


@_inline
def _exp_f32(row, n, bits, powers):
    """row[:n] = exp(row[:n]) for float32 values in [-64, 0]; bits / powers: an int32 scratch of n
    values and its float32 view."""
    for j in range(n):
        v = row[uintp(j)]
        t = np.float32(math.floor(v * np.float32(1.44269504) + np.float32(0.5)))
        r = v - t * np.float32(0.693359375) - t * np.float32(-2.12194440e-4)
        p = np.float32(1.9875691500e-4)
        p = p * r + np.float32(1.3981999507e-3)
        p = p * r + np.float32(8.3334519073e-3)
        p = p * r + np.float32(4.1665795894e-2)
        p = p * r + np.float32(1.6666665459e-1)
        p = p * r + np.float32(5.0000001201e-1)
        row[uintp(j)] = p * r * r + r + np.float32(1.0)
        bits[uintp(j)] = (np.int32(t) + np.int32(127)) << np.int32(23)
    for j in range(n):
        row[uintp(j)] = row[uintp(j)] * powers[uintp(j)]


@_inline
def _softmax_tile(w, mask, has_mask, b, h, floor, fast, bits, powers):
    """The tile w [Sq, Sk] (the pair's scores) -> the softmax of its rows, after adding mask[b, h]: the
    shift and clip row by row, the exponentials over the whole tile in one loop (rows of an
    attention's 28 keys are too short to vectorise well one by one), the sums and scaling by rows."""
    sq, sk = w.shape
    for i in range(sq):
        row = w[i]
        if has_mask:
            mrow = mask[b, h, i]
            for j in range(sk):
                row[j] += mrow[j]
        m = row[0]
        for j in range(1, sk):
            m = max(m, row[j])
        for j in range(sk):
            row[j] = max(row[j] - m, floor)
    flat = w.reshape(sq * sk)
    if fast:
        _exp_f32(flat, sq * sk, bits, powers)
    else:
        for j in range(sq * sk):
            flat[j] = math.exp(flat[j])
    for i in range(sq):
        row = w[i]
        s = 0.0
        for j in range(sk):
            s += row[j]
        inv = 1.0 / s
        for j in range(sk):
            row[j] = row[j] * inv


@_inline
def _pair(pair, heads, sq, sk, dh, size):
    """(sample, head, byte offset of its first query row, of its first key row) of the pair ``pair``."""
    b = pair // heads
    h = pair - b * heads
    ld = heads * dh
    return b, h, uintp((b * sq * ld + h * dh) * size), uintp((b * sk * ld + h * dh) * size)


@_inline
def _scores(gemm, q, k, tile, qo, ko, sq, sk, dh, ld, alpha):
    """tile = alpha Q K^T of the pair (its rows of Q at byte offset qo, of K at ko)."""
    gemm(
        ROW_MAJOR,
        NO_TRANS,
        TRANS,
        sq,
        sk,
        dh,
        alpha,
        q.ctypes.data + qo,
        ld,
        k.ctypes.data + ko,
        ld,
        0.0,
        tile.ctypes.data,
        sk,
    )


@_inline
def _weighted_values(gemm, tile, v, out, qo, ko, sq, sk, dh, ld):
    """The pair's rows of Out = tile V (tile: the softmax of its scores)."""
    gemm(
        ROW_MAJOR,
        NO_TRANS,
        NO_TRANS,
        sq,
        dh,
        sk,
        1.0,
        tile.ctypes.data,
        sk,
        v.ctypes.data + ko,
        ld,
        0.0,
        out.ctypes.data + qo,
        ld,
    )


def _forward(blocks):
    """Out[b, :, h] = softmax(alpha Q[b, :, h] K[b, :, h]^T + Mask[b, h]) V[b, :, h] over the pairs;
    the softmax written to W [batch, heads, Sq, Sk]."""

    def loop(gemm, q, k, v, mask, has_mask, alpha, floor, fast, w, out, bits, powers, parts):
        batch, sq, heads, dh = q.shape
        sk = k.shape[1]
        ld, size = heads * dh, q.itemsize
        pairs = batch * heads
        for p in blocks(parts):
            for pair in range(pairs * p // parts, pairs * (p + 1) // parts):
                b, h, qo, ko = _pair(pair, heads, sq, sk, dh, size)
                tile = w[b, h]
                _scores(gemm, q, k, tile, qo, ko, sq, sk, dh, ld, alpha)
                _softmax_tile(tile, mask, has_mask, b, h, floor, fast, bits[p], powers[p])
                _weighted_values(gemm, tile, v, out, qo, ko, sq, sk, dh, ld)

    return loop


@_inline
def _grad_of_values(gemm, dout, v, tile, ds, dv, qo, ko, sq, sk, dh, ld):
    """ds = dOut V^T (the gradient reaching the softmax), and the pair's rows of dV = W^T dOut."""
    gemm(
        ROW_MAJOR,
        NO_TRANS,
        TRANS,
        sq,
        sk,
        dh,
        1.0,
        dout.ctypes.data + qo,
        ld,
        v.ctypes.data + ko,
        ld,
        0.0,
        ds.ctypes.data,
        sk,
    )
    gemm(
        ROW_MAJOR,
        TRANS,
        NO_TRANS,
        sk,
        dh,
        sq,
        1.0,
        tile.ctypes.data,
        sk,
        dout.ctypes.data + qo,
        ld,
        0.0,
        dv.ctypes.data + ko,
        ld,
    )


@_inline
def _softmax_grad_tile(ds, tile, sq, sk):
    """ds = W * (ds - the row's sum of W * ds), the sum in float64: the softmax's gradient, in place."""
    for i in range(sq):
        s = 0.0
        for j in range(sk):
            s += ds[i, j] * np.float64(tile[i, j])
        for j in range(sk):
            ds[i, j] = tile[i, j] * (ds[i, j] - s)


@_inline
def _grad_of_inputs(gemm, ds, q, k, dq, dk, alpha, qo, ko, sq, sk, dh, ld):
    """The pair's rows of dQ = alpha dS K and of dK = alpha dS^T Q."""
    gemm(
        ROW_MAJOR,
        NO_TRANS,
        NO_TRANS,
        sq,
        dh,
        sk,
        alpha,
        ds.ctypes.data,
        sk,
        k.ctypes.data + ko,
        ld,
        0.0,
        dq.ctypes.data + qo,
        ld,
    )
    gemm(
        ROW_MAJOR,
        TRANS,
        NO_TRANS,
        sk,
        dh,
        sq,
        alpha,
        ds.ctypes.data,
        sk,
        q.ctypes.data + qo,
        ld,
        0.0,
        dk.ctypes.data + ko,
        ld,
    )


def _backward(blocks):
    """dV = W^T dOut, dS = W * (dOut V^T - the row's sum of W * dOut V^T) (softmax's gradient, the
    sum in float64), dQ = alpha dS K, dK = alpha dS^T Q over the pairs; ``scratch`` [parts, Sq, Sk]."""

    def loop(gemm, q, k, v, w, dout, alpha, dq, dk, dv, scratch, parts):
        batch, sq, heads, dh = q.shape
        sk = k.shape[1]
        ld, size = heads * dh, q.itemsize
        pairs = batch * heads
        for p in blocks(parts):
            ds = scratch[p]
            for pair in range(pairs * p // parts, pairs * (p + 1) // parts):
                b, h, qo, ko = _pair(pair, heads, sq, sk, dh, size)
                tile = w[b, h]
                _grad_of_values(gemm, dout, v, tile, ds, dv, qo, ko, sq, sk, dh, ld)
                _softmax_grad_tile(ds, tile, sq, sk)
                _grad_of_inputs(gemm, ds, q, k, dq, dk, alpha, qo, ko, sq, sk, dh, ld)

    return loop


# reassociation for the rows' maxima and float64 sums (vectorised; a sum of 28 float64 terms in another
# order rounds to the same float32 ratio but in rare ties), contraction for the polynomial; no
# assumption about NaN or infinity
_FAST = {"reassoc", "nsz", "contract"}
attention = numba.njit(cache=True, nogil=True, fastmath=_FAST)(_forward(range))
attention_parallel = numba.njit(cache=True, nogil=True, fastmath=_FAST, parallel=True)(_forward(prange))
attention_grad = numba.njit(cache=True, nogil=True, fastmath=_FAST)(_backward(range))
attention_grad_parallel = numba.njit(cache=True, nogil=True, fastmath=_FAST, parallel=True)(_backward(prange))
