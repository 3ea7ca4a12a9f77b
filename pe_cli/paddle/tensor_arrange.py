"""Paddle 2.x's names that rearrange or difference a tensor along its axes, from pe's ops:
``moveaxis`` (a transpose), ``vsplit`` (split along dim 0), ``reverse`` (flip), ``diff`` (n-th forward
differences, with ``prepend``/``append``), ``broadcast_shape`` (of two shapes, in Python), and the
products over axes ``inner``, ``outer`` and ``tensordot`` (matmuls of reshaped operands), ``rot90``,
``atleast_1d``/``2d``/``3d``, ``unflatten``, ``repeat_interleave`` (an int count), ``crop``,
``diagonal`` (a gather_nd of the diagonal's coordinates), ``diagflat``, ``broadcast_tensors``, and the
trapezoid rule (``trapezoid``, ``cumulative_trapezoid``: sums of diff's neighbours). Those
that reshape need the sizes of the dims they regroup known when the program is built."""

import numpy as np

from .. import layers as L
from ..layers.manipulation import reshape_variable
from ..layers.creation import assign_array_like
from ..layers.manipulation import tiled
from ..base.dtypes import convert_dtype
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import single as _single
from . import tensor_create as TC
from . import tensor_manip as TM
from ..framework.program_release import paddle_face

__all__ = [
    "moveaxis",
    "vsplit",
    "reverse",
    "diff",
    "broadcast_shape",
    "inner",
    "outer",
    "tensordot",
    "rot90",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "unflatten",
    "repeat_interleave",
    "crop",
    "diagonal",
    "diagflat",
    "broadcast_tensors",
    "trapezoid",
    "cumulative_trapezoid",
]

_END = 2**31 - 1


def _axes(values, rank, what):
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    out = []
    for v in values:
        if not -rank <= int(v) < rank:
            raise ValueError(f"paddle.moveaxis: {what} {v} is outside the {rank} dims of x")
        out.append(int(v) % rank)
    if len(set(out)) != len(out):
        raise ValueError(f"paddle.moveaxis: {what} {values} repeats an axis")
    return out


def moveaxis(x, source, destination, name=None):
    """x with its ``source`` axes moved to the ``destination`` positions (the others keep their order)."""
    rank = len(x.shape)
    src, dst = _axes(source, rank, "source"), _axes(destination, rank, "destination")
    if len(src) != len(dst):
        raise ValueError(f"paddle.moveaxis: source {source} and destination {destination} differ in length")
    order = [d for d in range(rank) if d not in src]
    for to, frm in sorted(zip(dst, src)):
        order.insert(to, frm)
    return L.transpose(x, order, name=name)


def vsplit(x, num_or_sections, name=None):
    """split(x, num_or_sections, axis=0), for x of 2 or more dims."""
    if len(x.shape) < 2:
        raise ValueError(f"The input tensor's dimension must be greater than 1, but got {len(x.shape)}")
    return TM.split(x, num_or_sections, axis=0, name=name)


def reverse(x, axis, name=None):
    """flip(x, axis)."""
    return TM.flip(x, axis, name=name)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """The ``n``-th forward difference out[i] = x[i + 1] - x[i] along ``axis`` (bool x: their xor),
    with ``prepend`` / ``append`` joined to x along that axis first."""
    TM.no_axis_of_0d(x, "diff")
    axis = int(axis) % len(x.shape)
    parts = [v for v in (prepend, x, append) if v is not None]
    out = L.concat(parts, axis=axis) if len(parts) > 1 else x
    boolean = convert_dtype(x.dtype) == "bool"
    for _ in range(int(n)):
        later = L.slice(out, axes=[axis], starts=[1], ends=[_END])
        earlier = L.slice(out, axes=[axis], starts=[0], ends=[-1])
        out = L.logical_xor(later, earlier) if boolean else L.elementwise_sub(later, earlier)
    return out


@paddle_face
def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The integral of ``y`` along ``axis`` by the trapezoid rule, at sample points ``x`` (1-D, or
    y's shape) or spaced ``dx`` (a number or a 0-D/1-D Tensor; 1.0 when neither is given)."""
    return _trapezoid(y, x, dx, axis, "trapezoid", L.reduce_sum)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """trapezoid's running integral along ``axis`` (one fewer element there than y)."""
    return _trapezoid(y, x, dx, axis, "cumulative_trapezoid", L.cumsum)


def _trapezoid(y, x, dx, axis, api, total):
    if x is not None and dx is not None:
        raise ValueError("Not permitted to specify both x and dx input args.")
    floats = ("float16", "float32", "float64")
    check_variable_and_dtype(y, "y", floats, api)
    axis = int(axis) % len(y.shape)
    if x is not None:
        check_variable_and_dtype(x, "x", floats, api)
        dx = diff(x, axis=0 if len(x.shape) == 1 else axis)
        if len(x.shape) == 1:
            dx = L.reshape(dx, [-1 if d == axis else 1 for d in range(len(y.shape))])
    elif dx is not None and hasattr(dx, "name") and len(dx.shape) > 1:
        raise ValueError(f"Expected dx to be a scalar, got dx of shape {list(dx.shape)}")
    pairs = L.elementwise_add(
        L.slice(y, axes=[axis], starts=[1], ends=[_END]), L.slice(y, axes=[axis], starts=[0], ends=[-1])
    )
    dx = 1.0 if dx is None else dx
    scaled = L.elementwise_mul(pairs, dx) if hasattr(dx, "name") else L.scale(pairs, scale=float(dx))
    return L.scale(total(scaled, axis), scale=0.5)


def broadcast_shape(x_shape, y_shape):
    """The shape two tensors of these shapes broadcast to (numpy's rule); a ValueError when they do not."""
    return list(np.broadcast_shapes(tuple(x_shape), tuple(y_shape)))


def _rows(x, k):
    return reshape_variable(x, [-1, k])


def inner(x, y, name=None):
    """sum(x[..., :] * y[..., :]) over the last dims: shape x.shape[:-1] + y.shape[:-1] (scalars: x * y)."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, ("float16", "float32", "float64"), "inner")
    if not x.shape or not y.shape:
        return L.elementwise_mul(x, y, name=name)
    k = x.shape[-1]
    if k != y.shape[-1] or k < 0:
        raise ValueError(
            f"paddle.inner: the last dims of x {list(x.shape)} and y {list(y.shape)} must be equal and known"
        )
    product = L.matmul(_rows(x, k), _rows(y, k), transpose_y=True)
    return reshape_variable(product, list(x.shape[:-1]) + list(y.shape[:-1]), name=name)


def outer(x, y, name=None):
    """x (flattened) as a column times y (flattened) as a row: a broadcast product, for int tensors too
    (layers.matmul takes floats only, as Fluid 1.8's)."""
    for what, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, what, ("float16", "float32", "float64", "int32", "int64"), "outer")
    return L.elementwise_mul(reshape_variable(x, [-1, 1]), reshape_variable(y, [1, -1]), name=name)


def _known(x, what, dims):
    shape = list(x.shape)
    if any(shape[d] < 0 for d in dims):
        raise ValueError(f"paddle.{what}: '{x.name}' {shape} needs dims {list(dims)} known when the program is built")
    return shape


def _tensordot_axes(axes, x_rank):
    """(x's summed axes, y's): an int n is x's last n with y's first n; a list of ints names x's (y's
    are the same); a pair of lists, each padded with the other's tail (Paddle's rule)."""
    if isinstance(axes, int):
        assert axes >= 0, f"The 'axes' in tensordot should not be negative, but received axes={axes}."
        return list(range(x_rank - axes, x_rank)), list(range(axes))
    if not isinstance(axes, (list, tuple)):
        raise TypeError(f"tensordot: axes must be int, tuple or list, got {type(axes).__name__}")
    if not axes or isinstance(axes[0], int):
        xa, ya = list(axes), []
    else:
        xa, ya = list(axes[0]), list(axes[1]) if len(axes) > 1 else []
    if len(xa) < len(ya):
        xa.extend(ya[len(xa) :])
    elif len(ya) < len(xa):
        ya.extend(xa[len(ya) :])
    return xa, ya


@paddle_face
def tensordot(x, y, axes=2, name=None):
    """Sums over ``axes`` (an int n: x's last n dims with y's first n; or [x_axes, y_axes]), numpy's
    tensordot: shape x's other dims + y's other dims. A summed dim of size 1 on one side broadcasts
    (the other side is summed over it first), as Paddle's."""
    xa, ya = _tensordot_axes(axes, len(x.shape))
    xs, ys = _known(x, "tensordot", range(len(x.shape))), _known(y, "tensordot", range(len(y.shape)))
    for dx, dy in zip(xa, ya):
        if xs[dx] == 1 and ys[dy] != 1:
            ys[dy] = 1
            y = L.reduce_sum(y, dim=[dy], keep_dim=True)
        elif ys[dy] == 1 and xs[dx] != 1:
            xs[dx] = 1
            x = L.reduce_sum(x, dim=[dx], keep_dim=True)
        elif xs[dx] != ys[dy]:
            raise ValueError(
                f"The dimensional size for 'x' and 'y' in tensordot should match each other, but 'x' "
                f"has size {xs[dx]} in dim {dx} while 'y' has size {ys[dy]} in dim {dy}."
            )
    xf, yf = [d for d in range(len(xs)) if d not in xa], [d for d in range(len(ys)) if d not in ya]
    k = int(np.prod([xs[a] for a in xa]))
    left = reshape_variable(L.transpose(x, xf + xa), [int(np.prod([xs[d] for d in xf])), k])
    right = reshape_variable(L.transpose(y, ya + yf), [k, int(np.prod([ys[d] for d in yf]))])
    return reshape_variable(L.matmul(left, right), [xs[d] for d in xf] + [ys[d] for d in yf], name=name)


def rot90(x, k=1, axes=(0, 1), name=None):
    """x turned k times by 90 degrees in the plane of ``axes`` (from the first toward the second)."""
    rank = len(x.shape)
    if len(axes) != 2:
        raise ValueError(f"paddle.rot90: axes {list(axes)} must name two dims")
    if rank < 2:
        raise ValueError(f"paddle.rot90: x has {rank} dims; it needs at least 2")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == rank:
        raise ValueError(f"paddle.rot90: axes {list(axes)} must be two different dims")
    if not all(-rank <= int(a) < rank for a in axes):
        raise ValueError(f"paddle.rot90: axes {list(axes)} out of range for x of {rank} dims")
    a0, a1 = (int(a) % rank for a in axes)
    k = int(k) % 4
    perm = list(range(len(x.shape)))
    perm[a0], perm[a1] = a1, a0
    if k == 0:
        return assign_array_like(x)
    if k == 2:
        return L.flip(x, [a0, a1])
    if k == 1:
        return L.transpose(L.flip(x, [a1]), perm)
    return L.flip(L.transpose(x, perm), [a1])


def _atleast(inputs, rank, pad):
    out = [x if len(x.shape) >= rank else reshape_variable(x, pad(list(x.shape))) for x in inputs]
    return out[0] if len(out) == 1 else out


def atleast_1d(*inputs, name=None):
    return _atleast(inputs, 1, lambda s: [1])


def atleast_2d(*inputs, name=None):
    return _atleast(inputs, 2, lambda s: [1] + (s or [1]))


def atleast_3d(*inputs, name=None):
    return _atleast(inputs, 3, lambda s: [1, 1, 1] if not s else [1] + s + [1] if len(s) == 1 else s + [1])


def unflatten(x, axis, shape, name=None):
    """x with dim ``axis`` split into ``shape`` (one entry may be -1)."""
    axis = int(axis) % len(x.shape)
    rest = _known(x, "unflatten", range(axis + 1, len(x.shape)))[axis + 1 :]
    return reshape_variable(x, [0] * axis + list(shape) + rest, name=name)


def repeat_interleave(x, repeats, axis=None, name=None):
    """Each element repeated ``repeats`` times along ``axis`` (None: of x flattened)."""
    if not isinstance(repeats, int):
        raise ValueError("paddle.repeat_interleave: pe takes an int repeats (not a Tensor of counts)")
    if axis is None:
        x, axis = reshape_variable(x, [-1]), 0
    TM.no_axis_of_0d(x, "repeat_interleave")
    axis = int(axis) % len(x.shape)
    shape = _known(x, "repeat_interleave", range(axis, len(x.shape)))
    times = [1] * (len(shape) + 1)
    times[axis + 1] = repeats
    repeated = tiled(L.unsqueeze(x, [axis + 1]), times)
    return reshape_variable(repeated, [0] * axis + [shape[axis] * repeats] + shape[axis + 1 :], name=name)


def crop(x, shape=None, offsets=None, name=None):
    """The window of x at ``offsets`` (default 0) of ``shape`` (default x's; -1: x's dim less its offset)."""
    return L.crop_tensor(x, list(x.shape) if shape is None else shape, offsets, name=name)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal ``offset`` of the planes (axis1, axis2), as numpy's: those two dims dropped, the diagonal a new
    last dim (empty where ``offset`` leaves none). Paddle 2.6's diagonal op, with its checks."""
    dtypes = ("bool", "int32", "int64", "float16", "float32", "float64")
    check_variable_and_dtype(x, "Input", dtypes, "diagonal")
    rank = len(x.shape)
    assert rank >= 2, f"The x must be at least 2-dimensional, But received Input x's dimensional: {rank}.\n"
    a1, a2 = (a if a >= 0 else rank + a for a in (axis1, axis2))
    for k, given, axis in ((1, axis1, a1), (2, axis2, a2)):
        assert axis < rank, (
            f"The argument axis{k} is out of range (expected to be in range of [{-rank}, {rank - 1}], but got "
            f"{given}).\n"
        )
    assert a1 != a2, f"axis1 and axis2 cannot be the same axis.But received axis1 = {axis1}, axis2 = {axis2}\n"
    attrs = {"offset": offset, "axis1": axis1, "axis2": axis2}
    return _single("diagonal", x, {"Input": [x]}, attrs, name=name)


def diagflat(x, offset=0, name=None):
    """A square matrix with x (flattened) on diagonal ``offset``."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64", "int32", "int64"), "diagflat")
    if not isinstance(offset, int):
        raise TypeError(f"diagflat: offset must be int, got {type(offset).__name__}")
    return TC.diag(reshape_variable(x, [-1]), offset=offset, name=name)


def broadcast_tensors(input, name=None):
    """Each tensor of ``input`` broadcast to their common shape (numpy's rule; sizes known)."""
    shape = []
    for x in input:
        shape = broadcast_shape(shape, _known(x, "broadcast_tensors", range(len(x.shape))))
    return [x if list(x.shape) == shape else TM._broadcast(x, shape) for x in input]
