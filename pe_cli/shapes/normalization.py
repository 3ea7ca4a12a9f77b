"""The normalization family's layout rules, shared by shape inference and the kernels of both devices."""


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
