"""Device-independent pieces of the kernels: shape rules and index checks that the CPU and CUDA
twins both apply. Host-side numpy only (the CPU path must not import numba.cuda)."""
import numpy as np

from ..errors import PeError


# -- shapes -----------------------------------------------------------------------------------------

def reshape_shape(x_shape, size, shape):
    """The target shape by Fluid's rule (0 copies X's dim, one -1 is inferred), checked against
    X's ``size`` elements."""
    shape = [int(d) for d in shape]
    out = [x_shape[i] if d == 0 else d for i, d in enumerate(shape)]
    if -1 in out:
        known = int(np.prod([d for d in out if d != -1]))
        if known == 0 or size % known:
            raise PeError(f"cannot reshape X of shape {list(x_shape)} to {shape}: "
                          f"{size} elements are not a multiple of {known}")
        out[out.index(-1)] = size // known
    if int(np.prod(out)) != size:
        raise PeError(f"cannot reshape X of shape {list(x_shape)} ({size} elements) to {shape} "
                      f"({int(np.prod(out))} elements)")
    return out


def split_sizes(x_shape, axis, attrs):
    """The sizes of split's parts along ``axis``: ``num`` equal ones, or ``sections`` (one -1 inferred)."""
    dim = x_shape[axis]
    if attrs["num"]:
        if dim % attrs["num"]:
            raise PeError(f"X of shape {list(x_shape)} cannot split into {attrs['num']} equal parts "
                          f"along axis {axis}")
        return [dim // attrs["num"]] * attrs["num"]
    sizes = list(attrs["sections"])
    if -1 in sizes:
        sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
    if sum(sizes) != dim or min(sizes) <= 0:
        raise PeError(f"sections={list(attrs['sections'])} do not split X of shape {list(x_shape)} "
                      f"along axis {axis}")
    return sizes


def squeeze_axes(x_shape, axes):
    """The axes squeeze removes: ``axes`` (each checked to be 1), or every dim of size 1."""
    ndim = len(x_shape)
    out = tuple(a % ndim for a in axes) if axes else tuple(i for i, d in enumerate(x_shape) if d == 1)
    bad = [a for a in out if x_shape[a] != 1]
    if bad:
        raise PeError(f"cannot squeeze X of shape {list(x_shape)} along axes {list(axes)}: "
                      f"dim {bad[0]} has size {x_shape[bad[0]]}")
    return out


def unsqueeze_shape(x_shape, axes):
    shape = list(x_shape)
    for a in axes:
        shape.insert(a + len(shape) + 1 if a < 0 else a, 1)
    return shape


def slice_window(shape, attrs):
    """(start per dim, size per dim) of slice's window: negative bounds count from the end, all
    are clipped to the dim."""
    starts, sizes = [0] * len(shape), list(shape)
    for a, s, e in zip(attrs["axes"], attrs["starts"], attrs["ends"]):
        a %= len(shape)
        dim = shape[a]
        s, e = s + dim if s < 0 else s, e + dim if e < 0 else e
        s, e = min(max(s, 0), dim), min(max(e, 0), dim)
        starts[a], sizes[a] = s, max(e - s, 0)
    return starts, sizes


def check_slice_not_empty(x_shape, sizes, attrs):
    if int(np.prod(sizes)) == 0:
        raise PeError(f"slice of Input of shape {list(x_shape)} with axes={list(attrs['axes'])}, "
                      f"starts={list(attrs['starts'])}, ends={list(attrs['ends'])} is empty")


# -- index checks (host arrays) ------------------------------------------------------------------------

def gather_rows(index, n):
    """gather's Index as a flat int64 array, checked to lie in [0, n)."""
    idx = index.reshape(-1).astype(np.int64, copy=False)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx[(idx < 0) | (idx >= n)][0]
        raise PeError(f"gather: index {bad} is out of range for X with {n} rows")
    return idx


def one_hot_ids(x, depth, allow_out_of_range):
    """one_hot's X [..., 1] as int64 ids [...], checked to lie in [0, depth) unless allowed not to."""
    ids = x.reshape(x.shape[:-1]).astype(np.int64, copy=False)
    outside = (ids < 0) | (ids >= depth)
    if outside.any() and not allow_out_of_range:
        raise PeError(f"one_hot: id {ids[outside][0]} is outside [0, {depth}); "
                      f"pass allow_out_of_range=True to get an all-zero row instead")
    return ids


def table_ids(ids, w_shape, pad):
    """lookup_table's Ids as a flat int64 array, checked to lie in [0, rows of W) or be ``pad``."""
    flat = ids.reshape(-1).astype(np.int64, copy=False)
    bad = (flat < 0) | (flat >= w_shape[0])
    if pad >= 0:
        bad &= flat != pad
    if bad.any():
        raise PeError(f"Ids hold {int(flat[bad][0])}, outside the table of {w_shape[0]} rows (W {list(w_shape)})")
    return flat
