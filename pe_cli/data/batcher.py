"""Batches of in-memory columns, with a seeded shuffle that depends only on (seed, epoch).

Because an epoch's order is a function of its number, a run can resume at any (epoch, batch) and
see exactly the batches a straight run would have seen.
"""

import numpy as np

from ..base.errors import PeError


class Batcher:
    def __init__(self, columns, batch_size, shuffle=True, drop_last=False, seed=0):
        if not columns:
            raise PeError("Batcher: no columns to batch")
        lengths = {len(v) for v in columns.values()}
        if len(lengths) != 1:
            raise PeError(f"Batcher: columns have different lengths {sorted(lengths)}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise PeError(f"Batcher: batch_size must be a positive integer, got {batch_size!r}")
        self.columns = columns
        self.num_samples = lengths.pop()
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.seed = seed

    def __len__(self):
        """Batches per epoch."""
        full, rest = divmod(self.num_samples, self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)

    def order(self, epoch):
        if not self.shuffle:
            return np.arange(self.num_samples)
        return np.random.default_rng([self.seed, epoch]).permutation(self.num_samples)

    def epoch(self, epoch, start_batch=0):
        """Yields (batch index, {name: array}) for one epoch, starting at ``start_batch``."""
        order = self.order(epoch)
        for b in range(start_batch, len(self)):
            idx = order[b * self.batch_size : (b + 1) * self.batch_size]
            if self.shuffle:
                yield b, {name: col[idx] for name, col in self.columns.items()}
            else:
                s = slice(b * self.batch_size, b * self.batch_size + len(idx))
                yield b, {name: col[s] for name, col in self.columns.items()}

    def reader(self, epoch=0):
        """A Fluid-style reader: a function returning an iterator of batches, each a list of samples
        (tuples in column order), for DataFeeder.feed / decorate_reader."""
        names = list(self.columns)

        def read():
            for _, batch in self.epoch(epoch):
                yield list(zip(*(batch[n] for n in names)))

        return read
