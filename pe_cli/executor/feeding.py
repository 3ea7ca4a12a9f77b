"""Checking fed values against the program's data variables: the first place user data enters."""

import warnings

import numpy as np

from ..base.errors import FeedError, PeError, did_you_mean
from ..framework.lod_tensor import LoDTensor
from ..ops.registry import fmt_shape
from ..base.selected_rows import SelectedRows


_NP_DTYPES = {}


def _np_dtype(name):
    """np.dtype(name), parsed once per name (a feed's check runs every step)."""
    dtype = _NP_DTYPES.get(name)
    if dtype is None:
        dtype = _NP_DTYPES[name] = np.dtype(name)
    return dtype


def as_feed_array(block, name, value, num_places=1):
    """A fed value as an array of the variable's dtype, checked against its declared dtype and shape
    where the variable asks for it (``need_check_feed``: fluid.data's, pe's model feeds; not
    fluid.layers.data's, as in Fluid). Split over ``num_places`` devices, a fixed first dimension is
    checked per device, as Fluid's (``[2]`` fed to a ``[1]`` variable on 2 or more devices).
    Returns (array, lod or None)."""
    var = block.vars.get(name)
    if var is None:
        hint = did_you_mean(name, [v.name for v in block.vars.values() if v.is_data])
        hint = f"; {hint}" if hint else ""
        raise FeedError(f"feed '{name}' is not a variable of the program{hint}")
    lod = None
    if isinstance(value, SelectedRows):
        return _feed_selected_rows(name, var, value), None
    if isinstance(value, LoDTensor):
        lod = value.lod() or None
        value = np.array(value)
        if lod:
            check_lod(name, lod, len(value))
        if value.dtype != _np_dtype(var.dtype) and value.dtype.kind in "biuf":
            value = value.astype(var.dtype)  # a LoDTensor the script built: Fluid runs it as it is
    if isinstance(value, np.ndarray):
        if value.dtype != _np_dtype(var.dtype):
            same_kind = np.issubdtype(value.dtype, np.integer) and np.issubdtype(np.dtype(var.dtype), np.integer)
            if var.need_check_feed and not same_kind:  # layers.data's feeds are not checked (Fluid's)
                raise FeedError(
                    f"feed '{name}': expected dtype {var.dtype}, got {value.dtype}; "
                    f"convert it with .astype('{var.dtype}')"
                )
            value = value.astype(var.dtype)
    elif np.isscalar(value):  # a Python number: shape [1], as Fluid's _as_lodtensor makes it; for a
        # variable declared 0-D (which Fluid 1.8 has not), 0-D as Paddle 2.6's makes it
        value = np.array(value if var.shape == () else [value], dtype=var.dtype)
    else:
        value = np.asarray(value, dtype=var.dtype)
    # Fluid 1.8 checks a feed's shape only for fluid.data (need_check_feed), never for layers.data; nor
    # a LoDTensor with a LoD fed to a variable declared without one (Fluid's op tests)
    if var.shape is not None and var.need_check_feed and not (lod and not var.lod_level):
        shape = value.shape if num_places == 1 or lod else _per_device(value.shape, num_places, var.shape)
        expected = var.shape
        known = type(expected) is tuple and (expected, shape) in _FITS
        if not known and _differs(shape, expected):
            raise FeedError(
                f"feed '{name}': expected shape {fmt_shape(expected)} (-1 is any size), got {fmt_shape(shape)}"
            )
        if not known and type(expected) is tuple and len(_FITS) < 4096:
            _FITS.add((expected, shape))
    return value, lod


_FITS = set()  # (declared, fed) shapes found to match: a feed's check runs every step


def _differs(shape, expected):
    """Whether a fed ``shape`` does not fit the ``expected`` one (Fluid 1.8's and Paddle 2.6's
    diff_tensor_shape): more dims than declared, a 0-D value for a declared shape with dims, or a
    known dim among the fed value's leading ones that differs. A value with fewer dims than declared
    fits on those it has (both take [6] for [-1, 1], even for [-1, 2]) and runs as it is."""
    if len(shape) > len(expected) or (not shape and expected):
        return True
    return any(e >= 0 and e != s for e, s in zip(expected, shape))


def _per_device(shape, num_places, expected):
    """The shape checked for a value split over ``num_places`` devices (Fluid's diff_tensor_shape):
    dim 0 is the rows of the first devices, or of the last one when they differ and dim 0 is fixed."""
    if not shape or not expected or expected[0] < 0:
        return shape
    split = -(-shape[0] // num_places)
    remainder = shape[0] % split if split else 0
    return (remainder if remainder and split == expected[0] else split,) + tuple(shape[1:])


def _feed_selected_rows(name, var, value):
    """A fed SelectedRows (an optimizer op's row-sparse Grad in a test): int64 rows within its height,
    values of the variable's dtype with one row per listed row."""
    rows, values = value.numpy()
    rows = rows.astype(np.int64, copy=False)
    outside = rows.size and (rows.min() < 0 or rows.max() >= value.height)
    if rows.ndim != 1 or values.shape[:1] != rows.shape or outside:
        raise FeedError(
            f"feed '{name}': a SelectedRows needs rows [K] in [0, {value.height}) and values [K, ...]; "
            f"got rows {list(rows)[:8]} and values {fmt_shape(values.shape)}"
        )
    return value.with_arrays(rows, values.astype(var.dtype, copy=False))


def check_lod(name, lod, rows):
    """A fed LoD must fit its data: each level ascending offsets from 0, each level's last offset
    the next level's count of sequences, the last level's the array's rows."""
    for i, level in enumerate(lod):
        below = len(lod[i + 1]) - 1 if i + 1 < len(lod) else rows
        what = f"level {i + 1}'s {below} sequences" if i + 1 < len(lod) else f"the {rows} rows of the data"
        # ascending: the level is its own sort (C loops; a generator over the pairs took 16 us for a
        # batch of 512 sequences, 130 of the sparse CTR step's 8 slots)
        if not level or level[0] != 0 or list(level) != sorted(level):
            raise FeedError(f"feed '{name}': LoD level {i} {list(level)} must be ascending offsets starting at 0")
        if level[-1] != below:
            raise FeedError(
                f"feed '{name}': LoD level {i} ends at {level[-1]} but must end at {what} "
                f"(lengths {[b - a for a, b in zip(level, level[1:])]} do not sum to {below})"
            )


# the value a RAW variable (Fluid's cudnn_lstm Cache: cuDNN's dropout states) has in a run: it holds no
# tensor, and the ops that take one as an input do not read it
RAW_VALUE = np.zeros(0, np.uint8)


def missing_value_error(block, name):
    var = block.vars.get(name)
    if var is not None and var.is_data:
        shape = "?" if var.shape is None else list(var.shape)
        return FeedError(f"missing feed '{name}' ({var.dtype}, shape {shape}): pass it in feed={{'{name}': ...}}")
    return PeError(
        f"variable '{name}' has no value in the scope: run the startup program first "
        f"(exe.run(fluid.default_startup_program())), or load a checkpoint"
    )


def known_feeds(program, feed, compiled=False):
    """The feeds less the names ``program`` has no variable for, each dropped with Fluid 1.8.5's and
    Paddle 2.6's executors' warning; a Fluid 1.8 program run as a CompiledProgram keeps them, as
    Fluid's parallel executor does (as_feed_array's FeedError, a ValueError as Fluid's, with a
    did-you-mean)."""
    if not isinstance(feed, dict) or (compiled and not getattr(program, "_follows_paddle2", False)):
        return feed
    names = program.global_block().vars
    unknown = [k for k in feed if (k if isinstance(k, str) else k.name) not in names]
    for k in unknown:
        warnings.warn(
            f"The variable {k if isinstance(k, str) else k.name} is not found in program. "
            "It is not declared or is pruned."
        )
    return {k: v for k, v in feed.items() if k not in unknown} if unknown else feed


def check_feed_dict(feed):
    """``feed`` of a single-device run: None, a dict, or a list of one dict (a DataLoader's step on one
    place, as Fluid's Executor takes it) as that dict; a TypeError otherwise."""
    if isinstance(feed, (list, tuple)) and len(feed) == 1 and isinstance(feed[0], dict):
        return feed[0]
    if feed is not None and not isinstance(feed, dict):
        raise TypeError(
            f"Executor.run: feed must be a dict of name -> value (a list of one dict per device "
            f"needs a CompiledProgram with_data_parallel), got {type(feed).__name__}"
        )
    return feed


def reader_feeds(program, n, feed=None):
    """The feeds of ``program``'s py_readers for one run on ``n`` devices: the next batch of each
    reader per device ([{name: value}] * n, as a list feed gives them), or None for a program that
    reads none. A reader is not read when ``feed`` gives any of its variables: the feed replaces its
    batch (an inference clone fed its image alone). fluid.core.EOFException when a reader's data has ended."""
    if not program._py_readers:
        return None
    fed = set()
    for item in feed if isinstance(feed, (list, tuple)) else [feed or {}]:
        fed.update(k if isinstance(k, str) else k.name for k in (item if isinstance(item, dict) else {}))
    readers = [r for r in program._py_readers if r.outputs is not None and not any(v.name in fed for v in r.outputs)]
    if not readers:
        return None
    per_device = [{} for _ in range(n)]
    for reader in readers:
        batches = reader.next_batches(n)
        del per_device[len(batches) :]  # a last, partial step (drop_last=False): the devices that have data
        for feed, batch in zip(per_device, batches):
            feed.update(batch)
    return per_device


def feed_lr_scheduler(program, scope):
    """Paddle 2.x: a program whose optimizer was given a ``paddle.optimizer.lr`` scheduler (the
    program's ``lr_scheduler``, set by the optimizer) takes the scheduler's current value into its
    learning-rate variable before each run, as Paddle's static Executor does."""
    scheduler = getattr(program, "lr_scheduler", None)
    var = None if scheduler is None else program.global_block().vars.get(getattr(scheduler, "_var_name", None))
    if var is not None:
        scope.set_array(var.name, np.array([scheduler()], dtype=_np_dtype(var.dtype)))
