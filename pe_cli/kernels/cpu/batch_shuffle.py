"""Kernels of ops/batch_shuffle.py (numpy): the order is numpy's permutation from the seed, so one
seed gives one order on every device."""

import numpy as np


def order(seed, rows):
    """(the permutation of ``rows`` rows, the next seed) drawn from ``seed``."""
    rng = np.random.default_rng(int(seed) % (2**63))
    return rng.permutation(rows).astype(np.int64), rng.integers(0, 2**31 - 1, size=1, dtype=np.int64)


def shuffle_batch(ins, attrs):
    x = ins["X"]
    seed = ins["Seed"].reshape(-1)[0] if "Seed" in ins else attrs["startup_seed"]
    width = x.shape[-1] if x.ndim else 1
    rows = x.size // width if width else int(np.prod(x.shape[:-1]))
    idx, seed_out = order(seed, rows)
    out = x.reshape(rows, width)[idx].reshape(x.shape)
    return {"Out": out, "ShuffleIdx": idx, "SeedOut": seed_out}


def shuffle_batch_grad(ins, attrs):
    dout, idx = ins["Out@GRAD"], ins["ShuffleIdx"]
    width = dout.shape[-1]
    dx = np.empty((idx.size, width), dtype=dout.dtype)
    dx[idx] = dout.reshape(idx.size, width)
    return {"X@GRAD": dx.reshape(dout.shape)}
