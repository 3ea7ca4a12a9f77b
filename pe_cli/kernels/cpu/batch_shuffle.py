"""CPU out-kernels of ops/batch_shuffle.py (meta rules: shapes/batch_shuffle.py; numpy): the order is numpy's
permutation from the seed, so one seed gives one order on every device; X's rows are gathered into Out (and
Out@GRAD's scattered back into X@GRAD) through [rows, width] views of the buffers handed."""

import numpy as np

from ...shapes import batch_shuffle as rules
from ..structured import adapter


def order(seed, rows):
    """(the permutation of ``rows`` rows, the next seed) drawn from ``seed``."""
    rng = np.random.default_rng(int(seed) % (2**63))
    return rng.permutation(rows).astype(np.int64), rng.integers(0, 2**31 - 1, size=1, dtype=np.int64)


def shuffle_batch_out(ins, outs, attrs, meta):
    rows, width = meta.args
    x = ins["X"]
    seed = ins["Seed"].reshape(-1)[0] if "Seed" in ins else attrs["startup_seed"]
    idx, seed_out = order(seed, rows)
    outs["ShuffleIdx"][...] = idx
    outs["SeedOut"][...] = seed_out
    np.take(x.reshape(rows, width), idx, axis=0, out=outs["Out"].reshape(rows, width))


def shuffle_batch_grad_out(ins, outs, attrs, meta):
    rows, width = meta.args
    dout = ins["Out@GRAD"].reshape(rows, width)
    outs["X@GRAD"].reshape(rows, width)[ins["ShuffleIdx"]] = dout


# the ops' kernels by name: CUDA's host fallbacks run them (kernels/cuda/batch_shuffle.py's HOST_OPS)
shuffle_batch = adapter(rules.shuffle_batch_meta, shuffle_batch_out, "shuffle_batch")
shuffle_batch_grad = adapter(rules.shuffle_batch_grad_meta, shuffle_batch_grad_out, "shuffle_batch_grad")
