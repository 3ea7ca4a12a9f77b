"""Device code of pool2d (kernels in pooling.py): one thread per output; max-pool's gradient scatters to
each window's first maximum, avg-pool's is a gather."""

import math

from numba import cuda
from .launcher import jit_kernel


@cuda.jit(device=True)
def _window_of(e, H, W, Ho, Wo, sh, sw, pt, pl):
    """(first row, first column, offset of its H x W plane) of output e's window; the row and column
    may lie in the padding (negative)."""
    ow = e % Wo
    oh = (e // Wo) % Ho
    plane = e // (Wo * Ho)
    return oh * sh - pt, ow * sw - pl, plane * H * W


@jit_kernel
def pool(x, out, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl, is_max, exclusive):
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        hs, ws, base = _window_of(e, H, W, Ho, Wo, sh, sw, pt, pl)
        if is_max:
            acc = -math.inf
        else:
            acc = 0.0
        for i in range(kh):
            h = hs + i
            if 0 <= h < H:
                for j in range(kw):
                    w = ws + j
                    if 0 <= w < W:
                        v = x[base + h * W + w]
                        if is_max:
                            if v > acc:
                                acc = v
                        else:
                            acc += v
        if not is_max:
            if exclusive:
                count = (min(hs + kh, H) - max(hs, 0)) * (min(ws + kw, W) - max(ws, 0))
                acc /= max(count, 1)
            else:
                acc /= kh * kw
        out[e] = acc
        e += step


@jit_kernel
def max_pool_grad(x, out, dout, dx, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl):
    """Each window's gradient goes to its first element equal to the maximum."""
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < out.size:
        hs, ws, base = _window_of(e, H, W, Ho, Wo, sh, sw, pt, pl)
        target = out[e]
        found = False
        for i in range(kh):
            h = hs + i
            if not found and 0 <= h < H:
                for j in range(kw):
                    w = ws + j
                    if not found and 0 <= w < W and x[base + h * W + w] == target:
                        cuda.atomic.add(dx, base + h * W + w, dout[e])
                        found = True
        e += step


@jit_kernel
def avg_pool_grad(dout, dx, H, W, Ho, Wo, kh, kw, sh, sw, pt, pl, exclusive):
    """dx[h, w] = sum over the windows holding (h, w) of their gradient / their divisor (a gather)."""
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        w = e % W
        h = (e // W) % H
        plane = e // (W * H)
        acc = 0.0
        for i in range(kh):
            top = h + pt - i
            if top >= 0 and top % sh == 0 and top // sh < Ho:
                oh = top // sh
                hs = oh * sh - pt
                for j in range(kw):
                    left = w + pl - j
                    if left >= 0 and left % sw == 0 and left // sw < Wo:
                        ow = left // sw
                        ws = ow * sw - pl
                        if exclusive:
                            count = max((min(hs + kh, H) - max(hs, 0)) * (min(ws + kw, W) - max(ws, 0)), 1)
                        else:
                            count = kh * kw
                        acc += dout[(plane * Ho + oh) * Wo + ow] / count
        dx[e] = acc
        e += step
