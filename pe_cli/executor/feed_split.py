"""Data parallelism's two ends: a feed split over the devices (along dim 0, or by whole sequences
for a LoD feed) and the devices' fetched values merged back (concatenated along dim 0)."""

import numpy as np

from ..base.errors import FeedError, FeedSplitError
from ..framework.lod_tensor import LoDTensor
from ..base.selected_rows import SelectedRows
from .feeding import as_feed_array
from .fetched import fetched


def split_sizes(total, n):
    """Rows per device when ``total`` rows are split over ``n`` devices: as even as possible, the
    remainder going to the last devices (3 on 2 devices: [1, 2])."""
    base, rem = divmod(total, n)
    return [base + (1 if i >= n - rem else 0) for i in range(n)]


def _slice_lod(lod, start, end):
    """Top-level sequences [start, end) of a LoD: (new offsets per level, first row, end row)."""
    new = []
    lo, hi = start, end
    for level in lod:
        offs = list(level[lo : hi + 1])
        new.append(offs if offs[0] == 0 else [o - offs[0] for o in offs])  # (the first device's: as they are)
        lo, hi = offs[0], offs[-1]
    return new, lo, hi


def _merge_lods(lods):
    if any(not lod for lod in lods):
        return None
    merged = [[0] for _ in lods[0]]
    for lod in lods:
        for level, offs in enumerate(lod):
            base = merged[level][-1]
            merged[level].extend(base + o for o in offs[1:])
    return merged


def _name(key):
    return key if isinstance(key, str) else getattr(key, "name", key)


def split_feed(block, feed, n, whole=(), persistable=(), partial=False):
    """Per device: ({name: array}, {name: lod}). A dict feed is split over the ``n`` devices (names
    in ``whole`` go whole to every device; a ``persistable`` name too when it has one row, as a
    learning rate of shape [1] does, else it is split like the rest, as in Fluid); a list feed gives
    one dict per device. ``partial`` (an inference program, as Fluid's partial feed): a value of
    fewer rows than devices gives one row to each of the first devices (``DeviceFeeds.ran``)."""
    per_device = DeviceFeeds(({}, {}) for _ in range(n))
    if feed is None:
        return per_device
    if isinstance(feed, dict):
        converted, bad_feed = [], None
        for key, value in feed.items():
            name = _name(key)
            try:
                places = 1 if name in whole else n  # checked per device
                converted.append((name, *as_feed_array(block, name, value, places)))
            except FeedError as e:
                bad_feed = bad_feed or e
        copied = {
            name for name, array, lod in converted if name in whole or (name in persistable and _rows(array, lod) <= 1)
        }
        for name, array, lod in converted:  # checked first: Fluid's layers.data checks no shape,
            if name not in copied and not (partial and 0 < _rows(array, lod) < n):  # the split fails there
                _check_split(name, array, lod, n, name in persistable)
        if bad_feed is not None:
            raise bad_feed
        for name, array, lod in converted:
            if name in copied:
                for vals, _ in per_device:
                    vals[name] = array
            else:
                _split_one(name, array, lod, per_device)
        return per_device
    if isinstance(feed, (list, tuple)):
        if partial and 0 < len(feed) < n:  # the last devices repeat the first's data, not fetched
            per_device.ran = len(feed)
            feed = list(feed) + [feed[0]] * (n - len(feed))
        if len(feed) != n:
            raise ValueError(
                f"feed is a list of {len(feed)} dict(s) but the program runs on {n} devices: "
                f"give one dict per device (exe.device_count), or a dict to split"
            )
        for d, item in enumerate(feed):
            if not isinstance(item, dict):
                raise TypeError(f"feed[{d}] must be a dict of name -> value for device {d}, got {type(item).__name__}")
            vals, lods = per_device[d]
            for key, value in item.items():
                name = _name(key)
                vals[name], lod = as_feed_array(block, name, value)
                if lod:
                    lods[name] = lod
        return per_device
    raise ValueError(
        f"feed must be a dict (split over the devices) or a list of one dict per device, got {type(feed).__name__}"
    )


def _rows(array, lod):
    """Samples (rows, or top-level sequences with a LoD) of a fed value; 0 for a scalar."""
    return len(lod[0]) - 1 if lod else (array.shape[0] if array.ndim else 0)


def _check_split(name, array, lod, n, persistable):
    if array.ndim == 0:
        raise FeedError(
            f"feed '{name}' is a scalar: a dict feed is split over the {n} devices along "
            f"its first dimension; give it a batch dimension or feed a list of dicts"
        )
    total = _rows(array, lod)
    unit = "sequence" if lod else "sample"
    if total < n and persistable:
        raise FeedSplitError(
            f"feed '{name}' is a persistable variable with {total} {unit}s but the program "
            f"runs on {n} devices: feed one (every device gets a copy) or at least {n} "
            f"(split over the devices)"
        )
    if total < n:
        raise FeedSplitError(
            f"feed '{name}' has {total} {unit}(s) but the program runs on {n} devices, and "
            f"each device needs at least one: feed at least {n} {unit}s per batch, or drop "
            f"the last incomplete batch (drop_last=True)"
        )


class DeviceFeeds(list):
    """Per device ({name: array}, {name: lod}); ``ran``: how many devices (the first ones) have data
    of their own. After a partial feed the others repeat the first device's (their results are not
    fetched), so that every device's ops run on real rows."""

    ran = None


def _split_one(name, array, lod, per_device):
    start = 0
    total = _rows(array, lod)
    sizes = split_sizes(total, len(per_device))
    if total < len(per_device):  # a partial feed: the first devices get a row each, the others
        sizes = [1] * total + [0] * (len(per_device) - total)  # the first device's again
        per_device.ran = min(total, per_device.ran or total)
    for d, size in enumerate(sizes):
        if size == 0:
            start = 0
            size = 1
        vals, lods = per_device[d]
        if lod:
            part, lo, hi = _slice_lod(lod, start, start + size)
            vals[name] = array[lo:hi]
            lods[name] = part
        else:
            vals[name] = array[start : start + size]
        start += size


def merge_fetch(arrays, lods, return_numpy):
    """The devices' values of one fetch (host copies of device arrays), concatenated along dim 0;
    a LoDTensor with the merged LoD when ``return_numpy`` is False. A row-sparse value is densified
    first, so it merges as the dense gradient would."""
    arrays = [a.to_dense() if isinstance(a, SelectedRows) else a for a in arrays]
    arrays = [np.asarray(a.copy_to_host() if hasattr(a, "copy_to_host") else a) for a in arrays]
    parts = [a.reshape(1) if a.ndim == 0 else a for a in arrays]
    merged = np.concatenate(parts, axis=0) if len(parts) > 1 else np.array(parts[0], copy=True)
    if return_numpy:
        return fetched(merged)
    return LoDTensor(merged, _merge_lods(lods) if lods and any(lods) else None)
