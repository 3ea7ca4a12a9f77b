"""Paddle 2.x's top-level manipulation names (``paddle.reshape``, ``paddle.split``, ``paddle.gather``,
``paddle.roll``, ``paddle.shape``, ``paddle.scatter_nd``, ...) with 2.x's signatures and semantics, built from pe's own layers. Names that
need a dim's size (roll, flatten, broadcast_to, meshgrid) need it known when the program is built."""
import numpy as np

from .. import layers as L
from ..base.errors import PeError
from ..framework.variable import Variable
from ..layers.helper import _single

__all__ = ["reshape", "reshape_", "transpose", "flatten", "concat", "split", "chunk", "stack", "unstack", "unbind",
           "squeeze", "squeeze_", "unsqueeze", "unsqueeze_", "expand", "broadcast_to", "expand_as", "tile", "flip",
           "roll", "slice", "strided_slice", "gather", "gather_nd", "index_select", "index_sample", "scatter",
           "scatter_", "shard_index", "multiplex", "cast", "numel", "rank", "is_empty", "is_tensor",
           "shape", "scatter_nd_add", "scatter_nd"]


def _dims(x, axis):
    """``axis`` (an int, a list, or None for all) as non-negative ints."""
    rank = len(x.shape)
    if axis is None:
        return list(range(rank))
    return [int(a) % rank if rank else 0 for a in (axis if isinstance(axis, (list, tuple)) else [axis])]


def _known(x, what, dims=None):
    shape = list(x.shape)
    for d in (range(len(shape)) if dims is None else dims):
        if shape[d] < 0:
            raise PeError(f"paddle.{what} of '{x.name}' {shape}: pe needs dim {d}'s size known when the program "
                          f"is built")
    return shape


def reshape(x, shape, name=None):
    """x with a new ``shape`` (a list; 0 keeps the dim, -1 is inferred)."""
    if isinstance(shape, Variable):
        raise PeError("paddle.reshape: a Tensor shape is not supported by pe; give a list of ints")
    return L.reshape(x, list(shape), name=name)


reshape_ = reshape


def transpose(x, perm, name=None):
    return L.transpose(x, list(perm), name=name)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """x with dims start_axis..stop_axis merged into one."""
    rank = len(x.shape)
    if rank == 0:
        return L.reshape(x, [1], name=name)
    start, stop = start_axis % rank, stop_axis % rank
    if start > stop:
        raise PeError(f"paddle.flatten: start_axis={start_axis} comes after stop_axis={stop_axis}")
    shape = list(x.shape)
    merged = 1
    for d in shape[start:stop + 1]:
        merged = -1 if d < 0 or merged < 0 else merged * d
    new = [0] * start + [merged] + shape[stop + 1:]
    if new.count(-1) + sum(1 for d in shape[stop + 1:] if d < 0) > 1 or any(d < 0 for d in shape[stop + 1:]):
        raise PeError(f"paddle.flatten of '{x.name}' {shape}: pe needs the sizes after stop_axis known")
    return L.reshape(x, new, name=name)


def concat(x, axis=0, name=None):
    return L.concat(list(x), axis=int(axis), name=name)


def split(x, num_or_sections, axis=0, name=None):
    """The list of parts of x along ``axis``: ``num_or_sections`` equal ones (an int) or of the
    listed sizes (one may be -1)."""
    return L.split(x, num_or_sections, dim=int(axis), name=name)


def chunk(x, chunks, axis=0, name=None):
    return split(x, int(chunks), axis=axis, name=name)


def stack(x, axis=0, name=None):
    return L.stack(list(x), axis=axis, name=name)


def unbind(input, axis=0):
    return L.unbind(input, axis=axis)


def unstack(x, axis=0, num=None):
    return L.unbind(x, axis=axis)


def squeeze(x, axis=None, name=None):
    """x without the dims of size 1 listed in ``axis`` (None: all of them); a listed dim of
    another size stays, as in Paddle 2.x."""
    dims = [d for d in _dims(x, axis) if x.shape[d] == 1 or (axis is not None and x.shape[d] < 0)]
    return L.squeeze(x, dims, name=name) if dims else x


def unsqueeze(x, axis, name=None):
    return L.unsqueeze(x, list(axis) if isinstance(axis, (list, tuple)) else [axis], name=name)


squeeze_, unsqueeze_ = squeeze, unsqueeze


def broadcast_to(x, shape, name=None):
    """x repeated to ``shape`` (a list; numpy's broadcasting: dims of size 1 grow, -1 keeps one)."""
    shape, xs = list(shape), list(x.shape)
    if len(shape) < len(xs):
        raise PeError(f"paddle.broadcast_to: shape {shape} has fewer dims than x {xs}")
    if len(shape) > len(xs):
        x = L.unsqueeze(x, list(range(len(shape) - len(xs))))
        xs = [1] * (len(shape) - len(xs)) + xs
    times = []
    for have, want in zip(xs, shape):
        if want == -1 or want == have:
            times.append(1)
        elif have == 1:
            times.append(int(want))
        else:
            raise PeError(f"paddle.broadcast_to: x {list(x.shape)} cannot broadcast to {shape}")
    return L.expand(x, times, name=name)


expand = broadcast_to


def expand_as(x, y, name=None):
    return broadcast_to(x, y.shape, name=name)


def tile(x, repeat_times, name=None):
    """x repeated ``repeat_times[i]`` times along each dim i (x gains leading dims of size 1 when
    repeat_times is longer)."""
    times = list(repeat_times)
    if len(times) > len(x.shape):
        x = L.unsqueeze(x, list(range(len(times) - len(x.shape))))
    times = [1] * (len(x.shape) - len(times)) + times
    return L.expand(x, times, name=name)


def flip(x, axis, name=None):
    return L.reverse(x, axis if isinstance(axis, (list, tuple)) else [axis])


def roll(x, shifts, axis=None, name=None):
    """x rolled ``shifts`` places along ``axis`` (None: over the flattened x, shape kept)."""
    if axis is None:
        shape = _known(x, "roll")
        flat = roll(L.reshape(x, [-1]), shifts, 0)
        return L.reshape(flat, shape, name=name)
    shifts = list(shifts) if isinstance(shifts, (list, tuple)) else [shifts]
    axes = _dims(x, axis)
    if len(shifts) != len(axes):
        raise PeError(f"paddle.roll: shifts {shifts} and axis {axis} must be as long")
    shape = _known(x, "roll", axes)
    for shift, a in zip(shifts, axes):
        k = int(shift) % shape[a] if shape[a] else 0
        if k:
            x = L.concat([L.slice(x, [a], [shape[a] - k], [shape[a]]), L.slice(x, [a], [0], [shape[a] - k])], axis=a)
    return x


def slice(input, axes, starts, ends):  # noqa: A001
    return L.slice(input, axes=list(axes), starts=list(starts), ends=list(ends))


def strided_slice(x, axes, starts, ends, strides, name=None):
    return L.strided_slice(x, axes, starts, ends, strides)


def _to_axis0(x, axis):
    perm = [axis] + [d for d in range(len(x.shape)) if d != axis]
    return perm, (x if axis == 0 else L.transpose(x, perm))


def gather(x, index, axis=None, name=None):
    """The slices x[index[i]] along ``axis`` (None or 0: the first dim)."""
    axis = 0 if axis is None else int(axis) % len(x.shape)
    if isinstance(index, Variable) and len(index.shape) == 2 and index.shape[1] == 1:
        index = L.reshape(index, [-1])
    if axis == 0:
        return L.gather(x, index)
    perm, moved = _to_axis0(x, axis)
    back = [perm.index(d) for d in range(len(perm))]
    return L.transpose(L.gather(moved, index), back, name=name)


def index_select(x, index, axis=0, name=None):
    return gather(x, index, axis=axis, name=name)


def gather_nd(x, index, name=None):
    return L.gather_nd(x, index, name=name)


def _row_ids(like):
    """An int64 [N, 1] column 0, 1, ..., N - 1 for the rows of ``like`` (N may be unknown)."""
    ones = L.cast(L.ones_like(L.slice(like, [1], [0], [1])), "int64")
    return L.scale(L.cumsum(ones, axis=0), bias=-1.0)


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for x [N, D] and index [N, K]."""
    if len(x.shape) != 2 or len(index.shape) != 2:
        raise PeError(f"paddle.index_sample: x {list(x.shape)} and index {list(index.shape)} must be 2-D")
    width = _known(x, "index_sample", [1])[1]
    index = L.cast(index, "int64")
    flat = L.elementwise_add(index, L.scale(_row_ids(index), scale=float(width)))
    picked = L.gather(L.reshape(x, [-1]), L.reshape(flat, [-1]))
    return L.reshape(picked, [-1, index.shape[1]] if index.shape[1] >= 0 else [0, -1])


def scatter(x, index, updates, overwrite=True, name=None):
    return L.scatter(x, index, updates, name=name, overwrite=overwrite)


scatter_ = scatter


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):
    """input % shard_size where input // shard_size == shard_id, else ``ignore_value``
    (shard_size = ceil(index_num / nshards))."""
    if not 0 <= shard_id < nshards:
        raise PeError(f"paddle.shard_index: shard_id={shard_id} must be in [0, nshards={nshards})")
    size = (index_num + nshards - 1) // nshards
    dtype = input.dtype
    size_v = L.fill_constant([1], dtype, size)
    inside = L.cast(L.equal(L.elementwise_floordiv(input, size_v), L.fill_constant([1], dtype, shard_id)), dtype)
    kept = L.elementwise_mul(inside, L.elementwise_mod(input, size_v))
    return L.elementwise_add(kept, L.scale(L.scale(inside, scale=-1.0, bias=1.0), scale=float(ignore_value)))


def multiplex(inputs, index):
    """out[i] = inputs[index[i]][i]: row i taken from the input ``index[i]`` names."""
    if len(inputs) < 2:
        raise PeError(f"paddle.multiplex: inputs must hold at least 2 Tensors, got {len(inputs)}")
    stacked = L.stack(list(inputs), axis=0)
    index = L.reshape(L.cast(index, "int64"), [-1, 1])
    coords = L.concat([index, _row_ids(index)], axis=1)
    return L.gather_nd(stacked, coords)


def cast(x, dtype):
    return L.cast(x, dtype)


def numel(x, name=None):
    return L.size(x)


def rank(input):
    """The number of dims of ``input``, an int32 Tensor [1]."""
    return L.fill_constant([1], "int32", len(input.shape))


def is_empty(x, name=None):
    return L.is_empty(x)


def is_tensor(x):
    """Whether x is a Tensor (in pe's static graphs: a Variable)."""
    return isinstance(x, Variable)


def shape(input):
    """The dims of ``input`` at run time: an int32 Tensor [rank]."""
    return _single("shape", input, {"Input": [input]}, {}, dtype="int32", stop_gradient=True)


def scatter_nd_add(x, index, updates, name=None):
    """x with each updates[i...] added at x[index[i..., :]] (repeated indices add up); index's last
    dim k picks an element (k = rank of x) or a slice of x."""
    xs = _known(x, "scatter_nd_add")
    k = index.shape[-1]
    if not 0 < k <= len(xs):
        raise PeError(f"paddle.scatter_nd_add: index's last dim {k} must be in 1..{len(xs)} (x is {xs})")
    rows, width = int(np.prod(xs[:k])), int(np.prod(xs[k:]))
    strides = [int(np.prod(xs[i + 1:k])) for i in range(k)]
    flat_ids = L.reduce_sum(L.elementwise_mul(L.cast(index, "int64"), L.assign(np.asarray(strides, np.int64))),
                            dim=-1)
    flat_ids = L.reshape(flat_ids, [-1])
    added = L.scatter(L.zeros([rows, width], x.dtype), flat_ids, L.reshape(updates, [-1, width]), overwrite=False)
    return L.elementwise_add(x, L.reshape(added, xs), name=name)


def scatter_nd(index, updates, shape, name=None):
    """zeros of ``shape`` with updates scattered (added) at ``index``: scatter_nd_add on zeros."""
    return scatter_nd_add(L.zeros([int(d) for d in shape], updates.dtype), index, updates, name=name)
