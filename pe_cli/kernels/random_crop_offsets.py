"""random_crop's window offsets, drawn on the host (numpy) from its Seed input: the CPU kernel crops with them,
the CUDA kernel copies the windows on the device, so both devices crop the same windows."""

import numpy as np


def crop_offsets(x_shape, attrs, seed):
    """(offsets [instances, k], the next seed): one uniform offset per cropped dim and instance."""
    shape = list(attrs["shape"])
    k = len(x_shape) - len(shape)
    rng = np.random.default_rng(int(np.asarray(seed).reshape(-1)[0]) & 0xFFFFFFFFFFFFFFFF)
    instances = int(np.prod(x_shape[:k], dtype=np.int64))
    highs = np.array([d - n + 1 for d, n in zip(x_shape[k:], shape)], dtype=np.int64)
    offsets = rng.integers(0, highs, size=(instances, len(shape)))
    return offsets, np.array([rng.integers(0, 2**62)], dtype=np.int64)
