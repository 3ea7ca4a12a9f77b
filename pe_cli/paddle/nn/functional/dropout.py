"""``paddle.nn.functional``'s dropouts with 2.x's defaults: ``mode`` 'upscale_in_train' (kept values
scaled by 1 / (1 - p) while training, identity otherwise) or 'downscale_in_infer' (Paddle 2.x's name
for Fluid's 'downgrade_in_infer', which Paddle 2.6 refuses: scaled by 1 - p at inference); ``training``
False builds the inference form. Over pe's dropout op; with ``axis`` (dropout2d/3d: whole channels)
one mask over those dims is drawn by uniform_random and broadcast; alpha_dropout keeps SELU's
mean and variance."""

from .... import layers as L
from ....framework.variable import Variable
from ... import tensor_manip as TM
from ... import tensor_math as TMa

__all__ = ["dropout", "dropout2d", "dropout3d", "alpha_dropout"]


def _check(fn, p, mode="upscale_in_train"):
    if isinstance(p, Variable):  # its value is read when the program runs (Paddle 2.x's)
        if list(p.shape) != [1]:
            raise TypeError(f"Required p.shape == [1] if type(p) is Variable, but received p.shape = {list(p.shape)}")
    elif not 0 <= p <= 1:
        raise ValueError(f"{fn}: p={p} must be in [0, 1]")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ValueError(f"{fn}: mode argument should be 'downscale_in_infer' or 'upscale_in_train', got {mode!r}")
    return "downgrade_in_infer" if mode == "downscale_in_infer" else mode  # the dropout op's name


def keep_mask(x, p, axes):
    """A float mask (1 with probability 1 - p) of x's shape kept on ``axes``, 1 elsewhere."""
    shape = [(d if i in axes else 1) for i, d in enumerate(x.shape)]
    if any(d in (None, -1) for d in shape):
        if shape[0] not in (None, -1) or any(d in (None, -1) for d in shape[1:]):
            raise ValueError(f"dropout: axis over an unknown dim other than the batch's ({list(x.shape)})")
        u = L.uniform_random_batch_size_like(x, [1] + shape[1:], x.dtype, min=0.0, max=1.0)
    else:
        u = L.uniform_random(shape, x.dtype, 0.0, 1.0)
    return TM.cast(TMa.greater_equal(u, L.fill_constant([1], x.dtype, float(p))), x.dtype)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zeroes elements (or, with ``axis``, whole slices along the other dims) with probability p."""
    mode = _check("dropout", p, mode)
    if axis is None:
        return L.dropout(
            x, p if isinstance(p, Variable) else float(p), is_test=not training, name=name, dropout_implementation=mode
        )
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = [a + len(x.shape) if a < 0 else a for a in axes]
    if not training:
        return x if mode == "upscale_in_train" else TMa.scale(x, 1.0 - p)
    if p == 1:
        return TMa.scale(x, 0.0)
    out = TMa.multiply(x, keep_mask(x, p, axes))
    return TMa.scale(out, 1.0 / (1.0 - p)) if mode == "upscale_in_train" else out


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    """Zeroes whole channels of a 4-D input with probability p."""
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"dropout2d: data_format={data_format!r} must be 'NCHW' or 'NHWC'")
    return dropout(x, p, [0, 1] if data_format == "NCHW" else [0, 3], training, name=name)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    """Zeroes whole channels of a 5-D input with probability p."""
    if data_format not in ("NCDHW", "NDHWC"):
        raise ValueError(f"dropout3d: data_format={data_format!r} must be 'NCDHW' or 'NDHWC'")
    return dropout(x, p, [0, 1] if data_format == "NCDHW" else [0, 4], training, name=name)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Sets dropped elements to SELU's negative saturation and rescales so that the mean and the
    variance stay those of the input."""
    _check("alpha_dropout", p)
    if not training or p == 0:
        return x
    alpha_p = -1.0507009873554805 * 1.6732632423543772
    a = ((1 - p) * (1 + p * alpha_p**2)) ** -0.5
    b = -a * alpha_p * p
    keep = keep_mask(x, p, list(range(len(x.shape))))
    dropped = TMa.scale(TMa.scale(keep, -1.0, 1.0), alpha_p)
    return TMa.scale(TMa.add(TMa.multiply(x, keep), dropped), a, b)
