"""A ragged column: one variable-length sequence per sample, stored as its rows (``values``, every
sequence's steps one after another) and ``lengths``. Indexing picks samples and gives a Ragged
that is a LoDTensor (one LoD level), so a batch of it feeds a ``lod_level: 1`` feed as it is.

In an ``.npz`` source a feed ``NAME`` is ragged when the archive also holds ``NAME_lengths``: the
values array has sum(lengths) rows."""
import numpy as np

from ..framework.lod_tensor import LoDTensor
from .readers import DataError

LENGTHS_SUFFIX = "_lengths"


class Ragged(LoDTensor):
    def __init__(self, values, lengths, name="?"):
        lengths = np.asarray(lengths).reshape(-1)
        if lengths.size and (not np.issubdtype(lengths.dtype, np.integer) or lengths.min() < 0):
            raise DataError(f"'{name}{LENGTHS_SUFFIX}' must hold non-negative integer lengths", ())
        if int(lengths.sum()) != len(values):
            raise DataError(f"'{name}{LENGTHS_SUFFIX}' sums to {int(lengths.sum())} but '{name}' has "
                            f"{len(values)} rows", (), "the lengths must add up to the values' rows")
        super().__init__(np.asarray(values))
        self.set_recursive_sequence_lengths([lengths.tolist()])
        self.name = name

    @property
    def values(self):
        return self._array

    @property
    def lengths(self):
        return np.asarray(self.recursive_sequence_lengths()[0], dtype=np.int64)

    def __len__(self):
        """Samples (sequences), not rows."""
        return len(self._lod[0]) - 1

    def __getitem__(self, index):
        offs = np.asarray(self._lod[0], dtype=np.int64)
        picks = np.arange(len(self))[index]
        rows = [np.arange(offs[i], offs[i + 1]) for i in picks]
        rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        return Ragged(self._array[rows], offs[picks + 1] - offs[picks], self.name)

    def with_values(self, values):
        """The same sequences over new rows (after a transform)."""
        return Ragged(values, self.lengths, self.name)


def npz_column(arrays, name, feed=None):
    """The column of an .npz archive's ``arrays`` named ``name``: a Ragged when ``NAME_lengths`` is
    beside it, else the plain array. Training (sources.py) and ``pe predict`` / ``pe infer`` read
    sequences through this one rule."""
    lengths = arrays.get(name + LENGTHS_SUFFIX)
    return arrays[name] if lengths is None else Ragged(arrays[name], lengths, feed or name)


def is_lengths(arrays, name):
    """Whether ``name`` is the lengths array of another array of the archive."""
    return name.endswith(LENGTHS_SUFFIX) and name[:-len(LENGTHS_SUFFIX)] in arrays



def plain_for_sequences(name, where):
    """The DataError of a plain array given to a ``lod_level: 1`` feed."""
    return DataError(f"{where}: feed '{name}' takes sequences (lod_level 1) but '{name}' is a plain array", (),
                     f"give '{name}' (every sample's steps, one after another) and '{name}{LENGTHS_SUFFIX}' "
                     f"(the steps of each sample) in an .npz")
