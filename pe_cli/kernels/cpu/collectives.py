"""The multi-device graph's collectives on CPU devices: all-reduce (sum in device order, so every
run gives the same numbers) and broadcast. CPU devices share the host's memory: a broadcast hands
every device the same array (kernels never modify their inputs, so sharing is safe)."""
import numpy as np


def all_reduce(arrays, devices, targets):
    """Sum of ``arrays`` (one per device of ``devices``, in that order), delivered to every device
    of ``targets``; returns the arrays in ``targets`` order (here one array, shared)."""
    total = arrays[0] if len(arrays) == 1 else np.add(arrays[0], arrays[1])
    for a in arrays[2:]:
        np.add(total, a, out=total)      # device order: the same sum every run
    return [total] * len(targets)


def broadcast(array, root, targets):
    """``array`` (on device ``root``) on every device of ``targets``."""
    return [array] * len(targets)
