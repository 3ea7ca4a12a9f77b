"""The gather_scatter family on a GPU (ops/gather_scatter.py). As indexing's gather and scatter, the indices
are checked on the host (the CPU kernels' checks and errors), then one launch moves the values: a thread
per output element for the gathers, per update element (adding atomically, so repeated indices add up)
for the scatters and the gathers' gradients; multiplex one launch per candidate."""

from numba import cuda

from . import runtime as rt
from ._host import given_cpu_kernel
from ._launch import copy, flat, grid, zeros
from .launcher import jit_kernel
from ..value_checks import checked_index, nd_positions


def _host_index(index, size, op, what="Index"):
    """The index array checked on the host as the CPU kernel checks it, and on the device as int64."""
    return rt.to_device(checked_index(rt.to_host(index), size, op, what))


# -- index_select: X as [outer, size, inner], Out as [outer, n, inner] ---------------------------------


@jit_kernel
def _select(x, index, out, n, size, inner):
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        s, j, b = o % inner, (o // inner) % n, o // (inner * n)
        out[o] = x[(b * size + index[j]) * inner + s]
        o += step


@jit_kernel
def _select_grad(dout, index, dx, n, size, inner):
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < dout.size:
        s, j, b = o % inner, (o // inner) % n, o // (inner * n)
        cuda.atomic.add(dx, (b * size + index[j]) * inner + s, dout[o])
        o += step


def _select_geometry(shape, dim):
    inner = 1
    for d in shape[dim + 1 :]:
        inner *= d
    return shape[dim], inner


def index_select(ins, attrs):
    x = ins["X"]
    dim = attrs["dim"] % x.ndim
    size, inner = _select_geometry(tuple(x.shape), dim)
    index = _host_index(ins["Index"].reshape((ins["Index"].size,)), size, "index_select")
    out = rt.empty(tuple(x.shape[:dim]) + (index.size,) + tuple(x.shape[dim + 1 :]), x.dtype)
    if out.size:
        _select[grid(out.size)](flat(x), index, flat(out), index.size, size, inner)
    return {"Out": out}


def index_select_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    dim = attrs["dim"] % x.ndim
    size, inner = _select_geometry(tuple(x.shape), dim)
    index = _host_index(ins["Index"].reshape((ins["Index"].size,)), size, "index_select_grad")
    dx = zeros(tuple(x.shape), dout.dtype)
    if dout.size:
        _select_grad[grid(dout.size)](flat(dout), index, flat(dx), index.size, size, inner)
    return {"X@GRAD": dx}


# -- index_sample -------------------------------------------------------------------------------


@jit_kernel
def _sample(x, index, out, k, width):
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < out.size:
        out[o] = x[(o // k) * width + index[o]]
        o += step


@jit_kernel
def sample_grad(dout, index, dx, k, width):
    """dx [rows, width] += dout [rows, k] at each row's columns index [rows, k] (index_sample's and
    sample_logits' gradients)."""
    o = cuda.grid(1)
    step = cuda.gridsize(1)
    while o < dout.size:
        cuda.atomic.add(dx, (o // k) * width + index[o], dout[o])
        o += step


def index_sample(ins, attrs):
    x = ins["X"]
    index = _host_index(ins["Index"], x.shape[1], "index_sample")
    out = rt.empty(tuple(index.shape), x.dtype)
    if out.size:
        _sample[grid(out.size)](flat(x), flat(index), flat(out), index.shape[1], x.shape[1])
    return {"Out": out}


def index_sample_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    index = _host_index(ins["Index"], x.shape[1], "index_sample_grad")
    dx = zeros(tuple(x.shape), dout.dtype)
    if dout.size:
        sample_grad[grid(dout.size)](flat(dout), flat(index), flat(dx), index.shape[1], x.shape[1])
    return {"X@GRAD": dx}


# -- multiplex: one launch per candidate, writing the rows it is chosen for ------------------------------


@jit_kernel
def _rows_of(src, ids, k, out, cols, zero_others):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < out.size:
        if ids[i // cols] == k:
            out[i] = src[i]
        elif zero_others:
            out[i] = 0
        i += step


def multiplex(ins, attrs):
    xs = ins["X"]
    ids = _host_index(ins["Ids"].reshape((ins["Ids"].size,)), len(xs), "multiplex", "Ids")
    out = rt.empty(tuple(xs[0].shape), xs[0].dtype)
    cols = out.size // max(out.shape[0], 1)
    for k, x in enumerate(xs):
        if out.size:
            _rows_of[grid(out.size)](flat(x), ids, k, flat(out), cols, False)
    return {"Out": out}


def multiplex_grad(ins, attrs, ctx):
    dout = ins["Out@GRAD"]
    ids = rt.to_device(rt.to_host(ins["Ids"]).reshape(-1).astype("int64"))
    cols = dout.size // max(dout.shape[0], 1)
    grads = []
    for k in range(ctx.output_counts["X@GRAD"]):
        g = rt.empty(tuple(dout.shape), dout.dtype)
        if g.size:
            _rows_of[grid(g.size)](flat(dout), ids, k, flat(g), cols, True)
        grads.append(g)
    return {"X@GRAD": grads}


# -- scatter_nd_add: positions of Index's rows computed on the host ------------------------------------


@jit_kernel
def _add_rows(updates, positions, out, width):
    u = cuda.grid(1)
    step = cuda.gridsize(1)
    while u < updates.size:
        cuda.atomic.add(out, positions[u // width] * width + u % width, updates[u])
        u += step


@jit_kernel
def take_rows(src, positions, out, width):
    """out [n, width] = the rows ``positions`` [n] of src [*, width]."""
    u = cuda.grid(1)
    step = cuda.gridsize(1)
    while u < out.size:
        out[u] = src[positions[u // width] * width + u % width]
        u += step


def _positions(shape, index, op):
    positions = nd_positions(tuple(shape), rt.to_host(index), op)
    width = 1
    for d in tuple(shape)[tuple(index.shape)[-1] :]:
        width *= d
    return rt.to_device(positions), width


def scatter_nd_add(ins, attrs):
    x, updates = ins["X"], ins["Updates"]
    positions, width = _positions(x.shape, ins["Index"], "scatter_nd_add")
    out = copy(x)
    if updates.size:
        _add_rows[grid(updates.size)](flat(updates), positions, flat(out), width)
    return {"Out": out}


def scatter_nd_add_grad(ins, attrs):
    updates, dout = ins["Updates"], ins["Out@GRAD"]
    positions, width = _positions(dout.shape, ins["Index"], "scatter_nd_add_grad")
    dupdates = rt.empty(tuple(updates.shape), dout.dtype)
    if dupdates.size:
        take_rows[grid(dupdates.size)](flat(dout), positions, flat(dupdates), width)
    return {"X@GRAD": copy(dout), "Updates@GRAD": dupdates}


# -- shard_index --------------------------------------------------------------------------------


def shard_index(ins, attrs, cpu_shard_index):
    """On the host: ids are checked against index_num there, as the CPU kernel checks them."""
    return {"Out": rt.to_device(cpu_shard_index({"X": rt.to_host(ins["X"])}, attrs)["Out"])}


HOST_OPS = {
    "shard_index": given_cpu_kernel(shard_index),
}
