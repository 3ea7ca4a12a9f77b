"""The meta rules of paddle.fft's ops (ops/fft.py): fft_c2c, fft_r2c, fft_c2r and stft. Each is numpy's FFT
(kernels/<device>/fft.py), a ``fresh`` variant ("numpy") handing over the array numpy made: Out of X's shape with
the last transformed axis's length the transform gives (rfft's onesided n // 2 + 1, irfft's last_dim_size or
2 (n - 1)), complex64 for float32 and complex64 X (float32 for complex64 X of fft_c2r), else of double precision. An
axis that is no axis of X, or a length numpy refuses, is numpy's error from the out-kernel."""

import numpy as np

from .structured import Meta

_SINGLE = (np.dtype(np.float32), np.dtype(np.complex64))


def _complex_of(dtype):
    return np.dtype(np.complex64 if np.dtype(dtype) in _SINGLE else np.complex128)


def _axis(axes, ndim):
    """The last of ``axes`` as a dim of X, None where there is none (numpy refuses it in the out-kernel)."""
    return axes[-1] % ndim if axes and ndim and -ndim <= axes[-1] < ndim else None


def _numpy(out, dtype):
    return Meta({"Out": (tuple(out), np.dtype(dtype))}, "numpy", fresh=True)


def fft_c2c_meta(attrs, ins, facts):
    """fft_c2c: Out of X's shape (complex)."""
    x = ins["X"]
    return _numpy(x.shape, _complex_of(x.dtype))


def fft_r2c_meta(attrs, ins, facts):
    """fft_r2c: Out of X's shape, the last axis n // 2 + 1 long where onesided (complex)."""
    x = ins["X"]
    shape, axis = list(x.shape), _axis(list(attrs["axes"]), len(x.shape))
    if attrs["onesided"] and axis is not None:
        shape[axis] = shape[axis] // 2 + 1
    return _numpy(shape, _complex_of(x.dtype))


def fft_c2r_meta(attrs, ins, facts):
    """fft_c2r: Out of X's shape, the last axis last_dim_size long (0: 2 (n - 1)); float32 for complex64 X, else
    float64."""
    x = ins["X"]
    shape, axes = list(x.shape), list(attrs["axes"])
    n = attrs["last_dim_size"] or 2 * (tuple(x.shape)[axes[-1]] - 1)  # (X's dim, as the out-kernel reads it)
    axis = _axis(axes, len(shape))
    if axis is not None:
        shape[axis] = n
    return _numpy(shape, np.float32 if np.dtype(x.dtype) == np.complex64 else np.float64)


def stft_meta(attrs, ins, facts):
    """stft: Out [..., bins, frames] of X [..., T]: frames 1 + (T - n_fft) // hop_length (none below 0), bins
    n_fft // 2 + 1 where onesided, else n_fft (complex)."""
    x = ins["X"]
    n, hop = attrs["n_fft"], attrs["hop_length"]
    frames = max(1 + (tuple(x.shape)[-1] - n) // hop, 0)  # (X's last dim, as the out-kernel reads it)
    bins = n // 2 + 1 if attrs["onesided"] else n
    return _numpy(tuple(x.shape)[:-1] + (bins, frames), _complex_of(x.dtype))
