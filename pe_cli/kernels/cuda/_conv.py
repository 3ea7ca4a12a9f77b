"""Device code of conv2d (kernels in convolution.py): im2col, col2im written as a gather (each input element
sums the columns that read it: deterministic, no atomics), and the transposes around the matmul."""

from numba import cuda

from . import runtime as rt
from ._launch import flat, grid
from ._strided import contiguous_strides, copy_window
from .launcher import jit_kernel


@jit_kernel
def im2col(x, cols, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, N, Ho, Wo):
    """cols[(c, i, j), (n, oh, ow)] = x[n, c, oh*sh - pt + i*dh, ow*sw - pl + j*dw] (0 in the padding)."""
    ncols = N * Ho * Wo
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < cols.size:
        row = e // ncols
        col = e % ncols
        j = row % kw
        i = (row // kw) % kh
        c = row // (kw * kh)
        ow = col % Wo
        oh = (col // Wo) % Ho
        n = col // (Wo * Ho)
        h = oh * sh - pt + i * dh
        w = ow * sw - pl + j * dw
        if 0 <= h < H and 0 <= w < W:
            cols[e] = x[((n * C + c) * H + h) * W + w]
        else:
            cols[e] = 0
        e += step


@jit_kernel
def col2im(dcols, dx, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, N, Ho, Wo):
    """dx[n, c, h, w] = sum of the columns that im2col filled from (n, c, h, w)."""
    ncols = N * Ho * Wo
    e = cuda.grid(1)
    step = cuda.gridsize(1)
    while e < dx.size:
        w = e % W
        h = (e // W) % H
        c = (e // (W * H)) % C
        n = e // (W * H * C)
        acc = 0.0
        for i in range(kh):
            top = h + pt - i * dh
            if top >= 0 and top % sh == 0 and top // sh < Ho:
                oh = top // sh
                for j in range(kw):
                    left = w + pl - j * dw
                    if left >= 0 and left % sw == 0 and left // sw < Wo:
                        ow = left // sw
                        acc += dcols[((c * kh + i) * kw + j) * ncols + (n * Ho + oh) * Wo + ow]
        dx[e] = acc
        e += step


def columns(x, geo):
    """x as im2col columns [groups, C/groups*kh*kw, N*Ho*Wo]."""
    n, c, h, wd = x.shape
    cols = rt.empty((c * geo.kh * geo.kw, n * geo.ho * geo.wo), x.dtype)
    im2col[grid(cols.size)](
        flat(x),
        flat(cols),
        c,
        h,
        wd,
        geo.kh,
        geo.kw,
        geo.sh,
        geo.sw,
        geo.dh,
        geo.dw,
        geo.pads[0],
        geo.pads[2],
        n,
        geo.ho,
        geo.wo,
    )
    return cols.reshape((geo.groups, cols.shape[0] // geo.groups, cols.shape[1]))


def swap01(a):
    """[A, B, ...] -> [B, A, ...] as a new contiguous array."""
    shape = tuple(a.shape)
    out_shape = (shape[1], shape[0]) + shape[2:]
    st = contiguous_strides(shape)
    out = rt.empty(out_shape, a.dtype)
    copy_window(a, out, out_shape, (st[1], st[0]) + st[2:], contiguous_strides(out_shape))
    return out


def dout_matrix(dout, geo):
    """Output@GRAD [N, M, Ho, Wo] -> [groups, M/groups, N*Ho*Wo]."""
    n, m = dout.shape[0], dout.shape[1]
    return swap01(dout).reshape((geo.groups, m // geo.groups, n * geo.ho * geo.wo))
