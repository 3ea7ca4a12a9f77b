"""Fluid's MultiSlotFileInstantDataFeed (the ``FileInstantDataset``'s files): binary instances, one
after another; an instance is each used slot in turn: a uint16 count n, then as many uint64 values
as the slot's variable has -1 dims (their sizes, which a batch takes from its last instance: the
batch dim -1 holds the batch's rows), then the n - that many values, float32 for a float variable,
uint64 (ids, read as int64) otherwise. Dense slots only (``lod_level`` 0), as the feed's
``is_dense`` slots."""

import os

import numpy as np

from ..base.errors import PeError
from ..base.limits import check_bytes, regular_file


def _slots(use_vars, what):
    slots = []
    for v in use_vars:
        if v.lod_level:
            raise PeError(
                f"{what}: slot '{v.name}' has lod_level {v.lod_level}; pe reads dense slots only "
                f"(lod_level 0) from MultiSlotFileInstantDataFeed files"
            )
        shape = list(v.shape)
        kind = np.float32 if "float" in str(v.dtype) else np.uint64
        slots.append((v.name, shape, [i for i, d in enumerate(shape) if d is None or d < 0], kind))
    return slots


def _read(path):
    try:
        regular_file(path, "FileInstantDataset file")
    except FileNotFoundError:
        raise PeError(f"data file {path} does not exist") from None
    check_bytes(os.path.getsize(path), f"{path} (a FileInstantDataset file)")
    with open(path, "rb") as f:
        return f.read()


def instant_batches(path, use_vars, batch_size):
    """Yields the batches of one file ({variable name: array of its shape}), in file order."""
    buf, slots = _read(path), _slots(use_vars, path)
    offset, end = 0, len(buf)
    while offset < end:
        values = {name: [] for name, *_ in slots}
        dims = {}
        for _ in range(batch_size):
            if offset >= end:
                break
            for name, shape, inductive, kind in slots:
                offset, dims[name] = _instance_slot(buf, offset, path, name, inductive, kind, values[name])
        yield {
            name: _batch(values[name], shape, inductive, dims[name], kind, path, name)
            for name, shape, inductive, kind in slots
        }


def _instance_slot(buf, offset, path, name, inductive, kind, out):
    if offset + 2 > len(buf):
        raise PeError(f"{path}: ends inside an instance, at byte {offset} (slot '{name}')")
    n = int(np.frombuffer(buf, np.uint16, 1, offset)[0])
    if n == 0 or n < len(inductive):
        raise PeError(
            f"{path}: byte {offset}: slot '{name}' holds {n} values; it needs at least "
            f"{max(1, len(inductive))} (its -1 dims' sizes first)"
        )
    offset += 2
    count = n - len(inductive)
    need = 8 * len(inductive) + count * np.dtype(kind).itemsize
    if offset + need > len(buf):
        raise PeError(f"{path}: ends inside slot '{name}' of an instance, at byte {offset}")
    sizes = np.frombuffer(buf, np.uint64, len(inductive), offset).astype(np.int64)
    offset += 8 * len(inductive)
    out.append(np.frombuffer(buf, kind, count, offset))
    return offset + count * np.dtype(kind).itemsize, sizes


def _batch(parts, shape, inductive, sizes, kind, path, name):
    flat = np.concatenate(parts)
    full = [int(sizes[inductive.index(i)]) if i in inductive else int(d) for i, d in enumerate(shape)]
    if int(np.prod(full)) != flat.size:
        raise PeError(
            f"{path}: slot '{name}': a batch of {flat.size} values does not fill shape {full} "
            f"(the variable's {shape}, its -1 dims as the file gives them)"
        )
    return flat.reshape(full).astype(np.int64 if kind == np.uint64 else np.float32, copy=False)
