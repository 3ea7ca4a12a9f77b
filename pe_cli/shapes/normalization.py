"""The normalization family's layout rules, shared by shape inference and the kernels of both devices: the
channel axis, the views of X the kernels normalize over, when batch_norm uses its running statistics."""

import numpy as np


def bn_channel_axis(ndim, layout):
    """The channel axis of batch_norm's X: last for NHWC, else 1."""
    return ndim - 1 if layout == "NHWC" else 1


def layer_norm_split(shape, begin_norm_axis):
    """layer_norm's view of X as a matrix: (rows, columns), rows the product of the dims before
    ``begin_norm_axis``, each row normalized over the rest."""
    rows = 1
    for d in tuple(shape)[:begin_norm_axis]:
        rows *= d
    size = 1
    for d in shape:
        size *= d
    return rows, size // max(rows, 1)


def running_stats(attrs):
    """batch_norm normalizes by the running statistics: with use_global_stats, or is_test without
    trainable_statistics (Fluid's test mode; with it, a test batch is normalized by its own)."""
    return bool((attrs["is_test"] and not attrs.get("trainable_statistics", False)) or attrs["use_global_stats"])


def norm_layout(x_shape, groups=None):
    """(rows, n, C, inner): X as [rows, n] rows to normalize, and as [N, C, inner] for the affine."""
    n_batch, c = x_shape[0], x_shape[1]
    inner = 1
    for d in x_shape[2:]:
        inner *= d
    per_row = inner if groups is None else c // groups * inner
    return (n_batch * (c if groups is None else groups)), per_row, c, inner


def channel_view(x, attrs):
    """(pre, C, post): X seen as [pre, C, post] around its channel dim."""
    axis = 1 if attrs["data_layout"] == "NCHW" else x.ndim - 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1 :]))


def lrn_view(x, attrs):
    """(pre, C, post) around the channel dim: 1 in NCHW, 3 in NHWC."""
    axis = 3 if attrs["data_format"] == "NHWC" else 1
    return int(np.prod(x.shape[:axis])), x.shape[axis], int(np.prod(x.shape[axis + 1 :]))
