"""A ragged column: one variable-length sequence per sample, stored as its rows (``values``, every
sequence's steps one after another) and ``lengths``; or sequences of sequences (a LoD of more levels:
beam search's candidates per source), each level's lengths counting the entries of the level below,
the outermost holding one entry per sample. Indexing picks samples and gives a Ragged that is a
LoDTensor (with those levels), so a batch of it feeds a ``lod_level: N`` feed as it is.

In an ``.npz`` source a feed ``NAME`` is ragged when the archive also holds ``NAME_lengths`` (one level:
the values array has sum(lengths) rows), or ``NAME_lengths_0``, ``NAME_lengths_1``, ... (one array per
level, the outermost first; the last one's sum is the values' rows)."""

import re

import numpy as np

from ..framework.lod_tensor import LoDTensor
from .readers import DataError

LENGTHS_SUFFIX = "_lengths"
_LEVEL = re.compile(r"_lengths_(\d+)$")


def _checked(lengths, name, count, counted):
    lengths = np.asarray(lengths).reshape(-1)
    if lengths.size and (not np.issubdtype(lengths.dtype, np.integer) or lengths.min() < 0):
        raise DataError(f"'{name}' must hold non-negative integer lengths", ())
    if int(lengths.sum()) != count:
        raise DataError(
            f"'{name}' sums to {int(lengths.sum())} but {counted} {count}",
            (),
            "each level's lengths must add up to the entries of the level below (the last: the rows)",
        )
    return lengths


class Ragged(LoDTensor):
    def __init__(self, values, lengths, name="?", outer=()):
        """``lengths``: the innermost level's (rows per sequence); ``outer``: the levels above it, outermost
        first (entries of the next level per entry)."""
        levels = [*outer, lengths]
        checked, count, counted = [], len(values), f"'{name}' has rows:"
        for k in reversed(range(len(levels))):
            label = name + (LENGTHS_SUFFIX if len(levels) == 1 else f"{LENGTHS_SUFFIX}_{k}")
            checked.insert(0, _checked(levels[k], label, count, counted))
            count, counted = len(checked[0]), f"'{label}' has entries:"
        super().__init__(np.asarray(values))
        self.set_recursive_sequence_lengths([level.tolist() for level in checked])
        self.name = name

    @property
    def values(self):
        return self._array

    @property
    def lengths(self):
        return np.asarray(self.recursive_sequence_lengths()[-1], dtype=np.int64)

    @property
    def outer(self):
        return [np.asarray(level, dtype=np.int64) for level in self.recursive_sequence_lengths()[:-1]]

    def __len__(self):
        """Samples (the outermost level's entries), not rows."""
        return len(self._lod[0]) - 1

    def __getitem__(self, index):
        picks = np.arange(len(self))[index]
        levels = []
        for offs in self._lod:  # each level: the picked entries' lengths, then the entries below them
            offs = np.asarray(offs, dtype=np.int64)
            levels.append(offs[picks + 1] - offs[picks])
            ranges = [np.arange(offs[i], offs[i + 1]) for i in picks]
            picks = np.concatenate(ranges) if ranges else np.zeros(0, np.int64)
        return Ragged(self._array[picks], levels[-1], self.name, levels[:-1])

    def with_values(self, values):
        """The same sequences over new rows (after a transform)."""
        return Ragged(values, self.lengths, self.name, self.outer)


def level_arrays(name, lod_lengths):
    """{array name: lengths} of a LoD's levels (outermost first) as an .npz holds them beside ``name``."""
    if len(lod_lengths) == 1:
        return {name + LENGTHS_SUFFIX: np.asarray(lod_lengths[0], np.int64)}
    return {f"{name}{LENGTHS_SUFFIX}_{k}": np.asarray(level, np.int64) for k, level in enumerate(lod_lengths)}


def npz_column(arrays, name, feed=None):
    """The column of an .npz archive's ``arrays`` named ``name``: a Ragged when ``NAME_lengths`` (or
    ``NAME_lengths_0``, ``_1``, ...) is beside it, else the plain array. Training (sources.py) and ``pe
    predict`` / ``pe infer`` read sequences through this one rule."""
    lengths = arrays.get(name + LENGTHS_SUFFIX)
    if lengths is not None:
        return Ragged(arrays[name], lengths, feed or name)
    levels = []
    while f"{name}{LENGTHS_SUFFIX}_{len(levels)}" in arrays:
        levels.append(arrays[f"{name}{LENGTHS_SUFFIX}_{len(levels)}"])
    return Ragged(arrays[name], levels[-1], feed or name, levels[:-1]) if levels else arrays[name]


def is_lengths(arrays, name):
    """Whether ``name`` is the lengths array (of a level) of another array of the archive."""
    level = _LEVEL.search(name)
    base = name[: level.start()] if level else name[: -len(LENGTHS_SUFFIX)] if name.endswith(LENGTHS_SUFFIX) else None
    return base is not None and base in arrays


def plain_for_sequences(name, where):
    """The DataError of a plain array given to a ``lod_level: 1`` feed."""
    return DataError(
        f"{where}: feed '{name}' takes sequences (lod_level 1) but '{name}' is a plain array",
        (),
        f"give '{name}' (every sample's steps, one after another) and '{name}{LENGTHS_SUFFIX}' "
        f"(the steps of each sample) in an .npz",
    )
