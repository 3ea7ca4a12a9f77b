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
        """The batch as Fluid's DataToLoDTensorConverter makes it: the fields as one array, reshaped
        to the variable's shape where the ranks differ (samples of [4, 1] for a [-1, 4] variable, a
        flat sequence of ids for a [-1, 1] one), left as they are where the ranks agree (a variable
        declared with a fixed batch fed another number of samples) or where the variable has more
        than one unknown dim; the feed's own check (fluid.data's) comes after, at Executor.run."""
        try:
            array = np.asarray(self.values, dtype=self.dtype)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{self.who}: the '{self.name}' fields cannot form a {self.dtype} array: {e}") from None
        shape = [int(s) for s in self.shape or ()]
        if shape and sum(s < 0 for s in shape) <= 1 and array.ndim != len(shape):
            try:
                array = array.reshape(shape)
            except ValueError:
                raise ValueError(
                    f"{self.who}: '{self.name}' is declared {shape} but its batch of fields has shape "
                    f"{list(array.shape)}, which cannot take that shape (Fluid's 'Reshape error'): "
                    f"give fields of {shape[1:] if shape[0] < 0 else shape} values"
                ) from None
        tensor = LoDTensor(array)
        if self.lod_level:
            tensor.set_recursive_sequence_lengths(self.lengths)
        return tensor
