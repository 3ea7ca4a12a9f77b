"""CUDA twins of kernels/cpu/image_extra.py: the permutation ops are one strided copy each; the
others one thread per element (maxout: per output), reductions for affine_channel's parameter
gradients."""
import math

from numba import cuda

from ..cpu import image_extra as _cpu
from . import runtime as rt
from ._elementwise import Binary
from ._launch import flat, grid, zeros
from ._reduce import reduce
from ._strided import contiguous_strides, copy_window


def _forward(op):
    def kernel(ins, attrs):
        x = ins["X"]
        seen, perm, shape = _cpu.permutation(op, tuple(x.shape), attrs)
        sstr = contiguous_strides(seen)
        dims = tuple(seen[p] for p in perm)
        out = rt.empty(shape, x.dtype)
        copy_window(x, out, dims, [sstr[p] for p in perm], contiguous_strides(dims))
        return {"Out": out}
    kernel.__name__ = op
    return kernel


def _backward(op):
    def kernel(ins, attrs):
        x, dout = ins["X"], ins["Out@GRAD"]
        seen, perm, _ = _cpu.permutation(op, tuple(x.shape), attrs)
        sstr = contiguous_strides(seen)
        dims = tuple(seen[p] for p in perm)
        dx = rt.empty(x.shape, x.dtype)
        copy_window(dout, dx, dims, contiguous_strides(dims), [sstr[p] for p in perm])
        return {"X@GRAD": dx}
    kernel.__name__ = op + "_grad"
    return kernel


pixel_shuffle, pixel_shuffle_grad = _forward("pixel_shuffle"), _backward("pixel_shuffle")
space_to_depth, space_to_depth_grad = _forward("space_to_depth"), _backward("space_to_depth")
shuffle_channel, shuffle_channel_grad = _forward("shuffle_channel"), _backward("shuffle_channel")


# -- affine_channel -------------------------------------------------------------------------------

@cuda.jit
def _affine(x, scale, bias, out, c, post):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        k = (i // post) % c
        out[i] = x[i] * scale[k] + bias[k]
        i += step


@cuda.jit(device=True, inline=True)
def _times(a, b, p, q):
    return a * b


_product = Binary(_times)


def affine_channel(ins, attrs):
    x = ins["X"]
    _, c, post = _cpu.channel_view(x, attrs)
    out = rt.empty(x.shape, x.dtype)
    if out.size:
        _affine[grid(out.size)](flat(x), ins["Scale"], ins["Bias"], flat(out), c, post)
    return {"Out": out}


def affine_channel_grad(ins, attrs):
    x, scale, dout = ins["X"], ins["Scale"], ins["Out@GRAD"]
    view = _cpu.channel_view(x, attrs)
    dx = rt.empty(x.shape, x.dtype)
    if dx.size:
        _affine[grid(dx.size)](flat(dout), scale, zeros(scale.shape, scale.dtype), flat(dx), view[1], view[2])
    d3 = dout.reshape(view)
    return {"X@GRAD": dx, "Scale@GRAD": reduce(_product(d3, x.reshape(view)), (0, 2), "sum"),
            "Bias@GRAD": reduce(d3, (0, 2), "sum")}


# -- maxout, lrn ----------------------------------------------------------------------------------

def _maxout_view(x, attrs):
    axis = attrs["axis"] % 4
    shape = tuple(x.shape)
    post = 1
    for d in shape[axis + 1:]:
        post *= d
    return shape[axis] // attrs["groups"], attrs["groups"], post


@cuda.jit
def _maxout(x, out, oc, g, post, backward, dout, dx):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        q = i % post
        c = (i // post) % oc
        p = i // (post * oc)
        base = ((p * oc + c) * g) * post + q
        best = x[base]
        at = base
        for k in range(1, g):
            v = x[base + k * post]
            if v > best:
                best = v
                at = base + k * post
        if backward:
            dx[at] = dout[i]
        else:
            out[i] = best
        i += step


def maxout(ins, attrs):
    x = ins["X"]
    oc, g, post = _maxout_view(x, attrs)
    shape = list(x.shape)
    shape[attrs["axis"] % 4] = oc
    out = rt.empty(tuple(shape), x.dtype)
    if out.size:
        _maxout[grid(out.size)](flat(x), flat(out), oc, g, post, False, flat(out), flat(out))
    return {"Out": out}


def maxout_grad(ins, attrs):
    x, out, dout = ins["X"], ins["Out"], ins["Out@GRAD"]
    oc, g, post = _maxout_view(x, attrs)
    dx = zeros(x.shape, x.dtype)
    if out.size:
        _maxout[grid(out.size)](flat(x), flat(out), oc, g, post, True, flat(dout), flat(dx))
    return {"X@GRAD": dx}


@cuda.jit
def _lrn(x, out, mid, c, post, n, pre_pad, k, alpha, beta):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        ch = (i // post) % c
        base = i - ch * post
        s = k
        for j in range(n):
            src = ch - pre_pad + j
            if 0 <= src < c:
                v = x[base + src * post]
                s += alpha * v * v
        mid[i] = s
        out[i] = x[i] * math.pow(s, -beta)
        i += step


@cuda.jit
def _lrn_grad(x, out, mid, dout, dx, c, post, n, pre_pad, alpha, beta):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < x.size:
        ch = (i // post) % c
        base = i - ch * post
        acc = 0.0
        for j in range(n):
            dst = ch + pre_pad - j          # the channel whose window holds ch at its j-th place
            if 0 <= dst < c:
                o = base + dst * post
                acc += dout[o] * out[o] / mid[o]
        dx[i] = dout[i] * math.pow(mid[i], -beta) - 2 * alpha * beta * x[i] * acc
        i += step


def lrn(ins, attrs):
    x = ins["X"]
    _, c, post = _cpu.lrn_view(x, attrs)
    out, mid = rt.empty(x.shape, x.dtype), rt.empty(x.shape, x.dtype)
    if x.size:
        _lrn[grid(x.size)](flat(x), flat(out), flat(mid), c, post, attrs["n"], (attrs["n"] - 1) // 2,
                           float(attrs["k"]), float(attrs["alpha"]), float(attrs["beta"]))
    return {"Out": out, "MidOut": mid}


def lrn_grad(ins, attrs):
    x = ins["X"]
    _, c, post = _cpu.lrn_view(x, attrs)
    dx = rt.empty(x.shape, x.dtype)
    if x.size:
        _lrn_grad[grid(x.size)](flat(x), flat(ins["Out"]), flat(ins["MidOut"]), flat(ins["Out@GRAD"]), flat(dx),
                                c, post, attrs["n"], (attrs["n"] - 1) // 2, float(attrs["alpha"]),
                                float(attrs["beta"]))
    return {"X@GRAD": dx}


def similarity_focus(ins, attrs):
    """A sort and a greedy pass per slice: on the host (the CPU kernel), the mask copied over."""
    return {"Out": rt.to_device(_cpu.similarity_focus({"X": rt.to_host(ins["X"])}, attrs)["Out"])}
