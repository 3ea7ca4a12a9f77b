"""Kernels of center_loss (ops/loss_extra.py): numpy. ``center_ids`` checks the labels for the CUDA
kernels too."""
import numpy as np

from ...errors import PeError


def _cast(a, like):
    return np.asarray(a).astype(like.dtype, copy=False)


def center_ids(label, clusters):
    ids = np.asarray(label).reshape(-1).astype(np.int64)
    bad = (ids < 0) | (ids >= clusters)
    if bad.any():
        raise PeError(f"center_loss: Label holds {int(ids[bad][0])}, outside the {clusters} centers")
    return ids


def center_loss(ins, attrs):
    x, centers = ins["X"], ins["Centers"]
    ids = center_ids(ins["Label"], centers.shape[0])
    diff = x - centers[ids]
    out = centers.copy()
    if attrs["need_update"]:
        alpha = np.asarray(ins["CenterUpdateRate"]).reshape(-1)[0]
        acc = np.zeros(centers.shape, dtype=np.float64)
        np.add.at(acc, ids, diff)
        count = 1 + np.bincount(ids, minlength=centers.shape[0])
        out = (centers + alpha * acc / count[:, None]).astype(centers.dtype)
    return {"SampleCenterDiff": diff, "Loss": _cast(0.5 * (diff * diff).sum(axis=1, keepdims=True), x),
            "CentersOut": out}


def center_loss_grad(ins, attrs):
    diff, dloss = ins["SampleCenterDiff"], ins["Loss@GRAD"]
    return {"X@GRAD": _cast(diff * dloss.reshape(-1, 1), diff)}
