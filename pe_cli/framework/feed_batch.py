"""One feed's field gathered over the samples of a minibatch into a batch (a LoDTensor): what
DataFeeder (pe_cli/data/feeder.py) and the py_reader family (pe_cli/layers/readers.py) both use to
turn a list of samples into the tensors a program is fed."""
import numpy as np

from .lod_tensor import LoDTensor


class FieldBatch:
    """Collects one feed's field over the samples of a minibatch; ``done()`` gives the batch as a
    LoDTensor (sequence lengths for lod_level > 0)."""

    def __init__(self, name, shape, dtype, lod_level, who="DataFeeder"):
        self.name, self.shape, self.dtype, self.lod_level, self.who = name, shape, dtype, lod_level, who
        self.values = []
        self.lengths = [[] for _ in range(lod_level)]

    def add(self, field):
        if self.lod_level == 0:
            self.values.append(field)
        else:
            self._add_nested(field, 0)

    def _add_nested(self, field, level):
        if level == self.lod_level:
            self.values.append(field)
            return
        items = list(field)
        self.lengths[level].append(len(items))
        for item in items:
            self._add_nested(item, level + 1)

    def done(self):
        try:
            array = np.asarray(self.values, dtype=self.dtype)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{self.who}: the '{self.name}' fields cannot form a {self.dtype} array: {e}") from None
        if self.lod_level == 0:
            sample = list(self.shape[1:]) if self.shape and self.shape[0] == -1 else list(self.shape)
            if -1 not in sample:
                per_sample = int(np.prod(array.shape[1:])) if array.ndim > 0 else 1
                if self.values and per_sample != int(np.prod(sample)):
                    return LoDTensor(self._as_declared(array, sample))
                array = array.reshape([len(self.values)] + sample)
            return LoDTensor(array)
        # Fluid's converter gives the values the variable's rank: [N] for a variable of shape [-1], else [N, 1]
        rows = array.reshape(-1, 1) if array.ndim == 1 and len(self.shape) != 1 else array
        tensor = LoDTensor(rows)
        tensor.set_recursive_sequence_lengths(self.lengths)
        return tensor

    def _as_declared(self, array, sample):
        """Fields that are not one sample each: as Fluid's converter, the batch reshaped to the
        variable's shape when the ranks differ (a reader yielding whole batches as one sample)."""
        shape = [int(s) for s in self.shape]
        if array.ndim != len(shape) and sum(s < 0 for s in shape) <= 1:
            try:
                return array.reshape(shape)
            except ValueError:
                pass
        raise ValueError(f"{self.who}: '{self.name}' takes samples of shape {sample}, got fields "
                         f"of shape {list(array.shape[1:])}")
