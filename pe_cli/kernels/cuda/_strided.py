"""Data movement: copying a strided window of one array into a strided window of another, in one
launch. Transpose, slice, concat, split, stack and expand are all such copies."""

from numba import cuda

from ._elementwise import merge_dims, offset
from ._launch import flat, grid
from .launcher import jit_kernel


def contiguous_strides(shape):
    """Element strides of a C-contiguous array."""
    strides, step = [], 1
    for n in reversed(tuple(shape)):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


@jit_kernel
def _copy_window(src, sbase, sstr, dst, dbase, dstr, dims, n):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < n:
        dst[dbase + offset(i, dims, dstr)] = src[sbase + offset(i, dims, sstr)]
        i += step


def copy_window(src, dst, dims, src_strides, dst_strides, src_base=0, dst_base=0):
    """dst[dst_base + sum(c * dst_strides)] = src[src_base + sum(c * src_strides)] for every index
    c of ``dims`` (element offsets into the flat, contiguous arrays)."""
    n = 1
    for d in dims:
        n *= d
    if n == 0:
        return dst
    merged, sstr, dstr = merge_dims(tuple(dims), [tuple(src_strides), tuple(dst_strides)])
    _copy_window[grid(n)](flat(src), int(src_base), sstr, flat(dst), int(dst_base), dstr, merged, n)
    return dst
