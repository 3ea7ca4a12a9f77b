"""Kernels of ops/tensor_extra.py: numpy, as the other tensor kernels (each op is one or two
vectorised passes). The host-side checks shared with the CUDA kernels live here too."""
import numpy as np

from ...errors import PeError
from ...shapes import range_length


def cumsum(ins, attrs):
    x = ins["X"]
    axis = attrs["axis"] % max(x.ndim, 1)
    x = x.reshape(x.shape or (1,))
    if attrs["reverse"]:
        x = np.flip(x, axis)
    out = np.cumsum(x, axis=axis, dtype=x.dtype)
    if attrs["exclusive"]:
        shifted = np.zeros_like(out)
        lead = (slice(None),) * axis
        shifted[lead + (slice(1, None),)] = out[lead + (slice(None, -1),)]
        out = shifted
    if attrs["reverse"]:
        out = np.flip(out, axis)
    return {"Out": np.ascontiguousarray(out).reshape(ins["X"].shape)}


def range_size(start, end, step):
    """The length of range(start, end, step) as Fluid counts it, checked."""
    n = range_length(start, end, step, np.asarray(start).dtype.kind in "iu")
    if n is None:
        raise PeError(f"range: Step={step} does not lead from Start={start} to End={end}; it must be "
                      f"nonzero, positive when Start < End and negative when Start > End")
    return n


def range_scalars(ins):
    return tuple(np.asarray(ins[s]).reshape(-1)[0] for s in ("Start", "End", "Step"))


def arange(ins, attrs):
    start, end, step = range_scalars(ins)
    n = range_size(start, end, step)
    dtype = np.asarray(ins["Start"]).dtype
    return {"Out": (start + np.arange(n, dtype=dtype) * step).astype(dtype, copy=False)}


def fill_any_like(ins, attrs):
    x = ins["X"]
    return {"Out": np.full(x.shape, attrs["value"], dtype=np.dtype(attrs["dtype"] or x.dtype))}


def eye(ins, attrs):
    rows, cols = attrs["num_rows"], attrs["num_columns"]
    return {"Out": np.eye(rows, rows if cols < 0 else cols, dtype=np.dtype(attrs["dtype"]))}


def diag(ins, attrs):
    return {"Out": np.diag(ins["Diagonal"])}


def reverse_axes(ndim, attrs):
    return tuple(sorted({a % max(ndim, 1) for a in attrs["axis"]}))


def reverse(ins, attrs):
    x = ins["X"]
    return {"Out": np.ascontiguousarray(np.flip(x, reverse_axes(x.ndim, attrs)))}


def expand_times(x_shape, target_shape):
    """How many times X tiles along each dim to reach the target's shape, checked."""
    if len(x_shape) != len(target_shape) or any(t % x if x else t for x, t in zip(x_shape, target_shape)):
        raise PeError(f"expand_as: target_tensor {list(target_shape)} is not X {list(x_shape)} tiled "
                      f"(each dim a multiple of X's)")
    return [t // x if x else 1 for x, t in zip(x_shape, target_shape)]


def expand_as(ins, attrs):
    x = ins["X"]
    return {"Out": np.tile(x, expand_times(x.shape, ins["target_tensor"].shape))}


def expand_as_grad(ins, attrs):
    x, dout = ins["X"], ins["Out@GRAD"]
    times = expand_times(x.shape, dout.shape)
    dims = [n for t, d in zip(times, x.shape) for n in (t, d)]
    dx = dout.reshape(dims).sum(axis=tuple(range(0, 2 * x.ndim, 2)))
    return {"X@GRAD": dx.reshape(x.shape).astype(x.dtype, copy=False)}


def where_index(ins, attrs):
    c = ins["Condition"]
    return {"Out": np.argwhere(c).astype(np.int64).reshape(-1, c.ndim)}


def size(ins, attrs):
    return {"Out": np.array([ins["Input"].size], dtype=np.int64)}


def isfinite(ins, attrs):
    return {"Out": np.array([bool(np.isfinite(ins["X"]).all())])}


def isinf(ins, attrs):
    return {"Out": np.array([bool(np.isinf(ins["X"]).any())])}


def isnan(ins, attrs):
    return {"Out": np.array([bool(np.isnan(ins["X"]).any())])}


def reduce_axes(x, attrs):
    return tuple(range(x.ndim)) if attrs["reduce_all"] else tuple(sorted({d % max(x.ndim, 1) for d in attrs["dim"]}))


def _reduce(fn):
    def kernel(ins, attrs):
        x = ins["X"]
        out = np.asarray(fn(x, axis=reduce_axes(x, attrs), keepdims=attrs["keep_dim"]), dtype=x.dtype)
        return {"Out": out.reshape(out.shape or (1,))}
    return kernel


reduce_prod = _reduce(np.prod)
reduce_all = _reduce(np.all)
reduce_any = _reduce(np.any)


def reduce_prod_grad(ins, attrs):
    """dX = dOut * the product of the other elements of the group: exclusive products from the
    left times those from the right, so zeros in X are exact (no division)."""
    x, dout = ins["X"], ins["Out@GRAD"]
    axes = reduce_axes(x, attrs)
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + list(axes))
    rows = moved.reshape(-1, int(np.prod([x.shape[a] for a in axes], dtype=np.int64)))
    left = np.ones_like(rows)
    right = np.ones_like(rows)
    if rows.shape[1] > 1:
        left[:, 1:] = np.cumprod(rows[:, :-1], axis=1)
        right[:, :-1] = np.cumprod(rows[:, :0:-1], axis=1)[:, ::-1]
    others = (left * right).reshape(moved.shape)
    others = np.transpose(others, np.argsort(kept + list(axes)))
    dkept = dout.reshape([1 if d in axes else n for d, n in enumerate(x.shape)])
    return {"X@GRAD": (others * dkept).astype(x.dtype, copy=False)}


def crop_offsets(x_shape, attrs, seed):
    """(offsets [instances, k], the next seed): one uniform offset per cropped dim and instance."""
    shape = list(attrs["shape"])
    k = len(x_shape) - len(shape)
    rng = np.random.default_rng(int(np.asarray(seed).reshape(-1)[0]) & 0xFFFFFFFFFFFFFFFF)
    instances = int(np.prod(x_shape[:k], dtype=np.int64))
    highs = np.array([d - n + 1 for d, n in zip(x_shape[k:], shape)], dtype=np.int64)
    offsets = rng.integers(0, highs, size=(instances, len(shape)))
    return offsets, np.array([rng.integers(0, 2 ** 62)], dtype=np.int64)


def random_crop(ins, attrs):
    x = ins["X"]
    shape = list(attrs["shape"])
    offsets, next_seed = crop_offsets(x.shape, attrs, ins["Seed"])
    k = x.ndim - len(shape)
    flat = x.reshape((-1,) + x.shape[k:])
    out = np.empty((flat.shape[0],) + tuple(shape), dtype=x.dtype)
    for i, off in enumerate(offsets):
        out[i] = flat[(i,) + tuple(slice(o, o + n) for o, n in zip(off, shape))]
    return {"Out": out.reshape(x.shape[:k] + tuple(shape)), "SeedOut": next_seed}
