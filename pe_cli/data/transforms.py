"""Per-feed transforms, applied to a whole column [N, ...] once when the data is loaded:

    scale: 0.00392156           x * s
    normalize: {mean: m, std: s} (x - m) / s; m and s numbers or one per channel (axis 1)
    reshape: [1, 28, 28]        new shape of one sample
    one_hot: 10                 integer labels -> float32 one-hot rows
    cast: float32               a dtype

Then ``conform`` fits a column to its feed: the feed's dtype, and its per-sample shape when only
the layout differs ([N] labels become [N, 1]).
"""

import numpy as np

from ..base.errors import PeError, suggest
from ..base.dtypes import convert_dtype
from ..base.limits import LimitError, check_bytes
from .readers import DataError

KINDS = ("scale", "normalize", "reshape", "one_hot", "cast")


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_transform(item):
    """Checks one transform ``{kind: argument}``; returns (kind, argument) or raises DataError with
    the key to fix (relative to the transform)."""
    if not isinstance(item, dict) or len(item) != 1:
        raise DataError(
            "a transform is one 'kind: argument' pair", (), f"e.g. {{scale: 0.00392156}}; kinds: {', '.join(KINDS)}"
        )
    ((kind, arg),) = item.items()
    if kind not in KINDS:
        raise DataError(f"unknown transform '{kind}'", (kind,), suggest(kind, KINDS))
    if kind == "scale" and not _number(arg):
        raise DataError(f"scale takes a number, got {arg!r}", (kind,), "e.g. scale: 0.00392156")
    if kind == "normalize":
        if not isinstance(arg, dict) or set(arg) != {"mean", "std"}:
            raise DataError("normalize takes {mean: m, std: s}", (kind,), "e.g. normalize: {mean: 0.1307, std: 0.3081}")
        for k in ("mean", "std"):
            v = arg[k]
            if not (_number(v) or (isinstance(v, list) and v and all(_number(x) for x in v))):
                raise DataError(f"normalize.{k} takes a number or a list of numbers, got {v!r}", (kind, k))
            if k == "std" and any(x == 0 for x in (v if isinstance(v, list) else [v])):
                raise DataError("normalize.std must not be 0", (kind, k))
    if kind == "reshape" and not (
        isinstance(arg, list)
        and arg
        and all(isinstance(d, int) and not isinstance(d, bool) and (d > 0 or d == -1) for d in arg)
    ):
        raise DataError(f"reshape takes the shape of one sample, got {arg!r}", (kind,), "e.g. reshape: [1, 28, 28]")
    if kind == "one_hot" and not (isinstance(arg, int) and not isinstance(arg, bool) and arg > 1):
        raise DataError(f"one_hot takes the number of classes, got {arg!r}", (kind,), "e.g. one_hot: 10")
    if kind == "cast":
        try:
            convert_dtype(arg)
        except (PeError, TypeError) as e:
            raise DataError(str(e), (kind,)) from None
    return kind, arg


def apply_transforms(array, transforms):
    """Applies the transforms in order to a column [N, ...]; raises DataError (key: the index)."""
    for i, item in enumerate(transforms or []):
        try:
            kind, arg = check_transform(item)
        except DataError as e:
            raise DataError(e.message, (i,) + e.key, e.hint) from None
        array = _apply(array, kind, arg, i)
    return array


def _apply(array, kind, arg, i):
    if kind == "scale":
        return array.astype(_float(array)) * arg
    if kind == "normalize":
        mean, std = (_per_channel(array, arg[k], i, k) for k in ("mean", "std"))
        return (array.astype(_float(array)) - mean) / std
    if kind == "reshape":
        try:
            return array.reshape([len(array)] + list(arg))
        except ValueError:
            raise DataError(
                f"cannot reshape samples of shape {list(array.shape[1:])} "
                f"({int(np.prod(array.shape[1:]))} values) to {arg}",
                (i, kind),
            ) from None
    if kind == "one_hot":
        labels = array.reshape(len(array), -1)
        if (
            labels.shape[1] != 1
            or not np.issubdtype(array.dtype, np.integer)
            and not np.all(labels == np.round(labels))
        ):
            raise DataError("one_hot needs one integer label per sample", (i, kind))
        labels = labels[:, 0].astype(np.int64)
        if labels.min(initial=0) < 0 or labels.max(initial=0) >= arg:
            raise DataError(
                f"labels range over [{labels.min()}, {labels.max()}], outside one_hot: {arg}",
                (i, kind),
                f"use one_hot: {labels.max() + 1} or more",
            )
        try:
            check_bytes(len(labels) * arg * 4, f"one_hot: {arg:,} over {len(labels):,} samples")
        except LimitError as e:
            raise DataError(str(e), (i, kind), "is the class count right?") from None
        out = np.zeros((len(labels), arg), dtype=np.float32)
        out[np.arange(len(labels)), labels] = 1.0
        return out
    if kind == "cast":
        return array.astype(convert_dtype(arg))
    raise AssertionError(kind)


def _float(array):
    return array.dtype if np.issubdtype(array.dtype, np.floating) else np.float32


def _per_channel(array, value, i, key):
    if not isinstance(value, list):
        return np.float32(value) if _float(array) == np.float32 else value
    if array.ndim < 2 or array.shape[1] != len(value):
        raise DataError(
            f"normalize.{key} has {len(value)} values but samples have "
            f"{array.shape[1] if array.ndim > 1 else 1} channels (axis 1)",
            (i, "normalize", key),
        )
    shape = [1, len(value)] + [1] * (array.ndim - 2)
    return np.asarray(value, dtype=_float(array)).reshape(shape)


def conform(array, name, shape, dtype):
    """Fits a column to a feed of per-batch ``shape`` (with -1 for the batch) and ``dtype``; a float
    value that is not finite in ``dtype`` (NaN, Inf, 1e39 in float32) is refused."""
    sample = list(shape[1:]) if shape and shape[0] == -1 else list(shape)
    have = list(array.shape[1:])
    if -1 not in sample and have != sample:
        need, got = int(np.prod(sample)), int(np.prod(have))
        if need != got:
            raise DataError(
                f"feed '{name}' takes samples of shape {sample} ({need} values); the data has {have} ({got} values)",
                (),
                f"add a transform under data.transforms.{name} (reshape, one_hot) or fix the feed's shape",
            )
        array = array.reshape([len(array)] + sample)
    if array.dtype != np.dtype(dtype):
        if np.issubdtype(np.dtype(dtype), np.integer) and np.issubdtype(array.dtype, np.floating):
            if not np.all(array == np.round(array)):
                raise DataError(
                    f"feed '{name}' is {dtype} but the data has fractional values",
                    (),
                    "change the feed's dtype or the data",
                )
        before, array = array, array.astype(dtype)
    else:
        before = array
    if np.issubdtype(array.dtype, np.floating) and not np.isfinite(array).all():
        at = np.unravel_index(int(np.argmin(np.isfinite(array))), array.shape)
        raise DataError(
            f"feed '{name}': sample {at[0]} holds {float(before[at]):g}, which is not a finite {dtype} "
            f"(NaN, Inf, or beyond {np.finfo(dtype).max:.3g})",
            (),
            "fix or drop that sample, or give the feed a numeric data.preprocessing (it fills missing values)",
        )
    return np.ascontiguousarray(array)
