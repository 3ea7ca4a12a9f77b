"""Kernels of pe_cli/ops/fft.py: numpy's FFT in X's precision (complex64 for float32 and complex64 values), the
out-kernels of shapes/fft.py's meta rules (``fresh``: the arrays numpy made handed over)."""

import numpy as np

from ...shapes.fft import fft_c2c_meta, fft_c2r_meta, fft_r2c_meta, stft_meta
from ..structured import adapter, fresh_kernel

_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _complex_of(x):
    return np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128


def _fft_c2c(ins, attrs):
    x, axes, norm = ins["X"], list(attrs["axes"]), attrs["normalization"]
    fn = np.fft.fftn if attrs["forward"] else np.fft.ifftn
    return {"Out": fn(x, axes=axes, norm=norm).astype(_complex_of(x))}


def _fft_r2c(ins, attrs):
    """forward: rfftn (fftn with onesided False); else the conjugate of the transform with the inverse's scaling
    (ihfft)."""
    x, axes, norm = ins["X"], list(attrs["axes"]), attrs["normalization"]
    scale = norm if attrs["forward"] else _SWAP[norm]
    out = np.fft.rfftn(x, axes=axes, norm=scale) if attrs["onesided"] else np.fft.fftn(x, axes=axes, norm=scale)
    return {"Out": (out if attrs["forward"] else np.conj(out)).astype(_complex_of(x))}


def _fft_c2r(ins, attrs):
    """irfftn to last_dim_size (0: 2 (n - 1)) along the last axis; forward (hfft): irfftn of the conjugate with
    the forward's scaling. An empty last axis (no coefficients, zero-padded to n) transforms to zeros, as Paddle
    2.6.2's does (numpy's irfftn of it hands back uninitialized memory)."""
    x, axes, norm = ins["X"], list(attrs["axes"]), attrs["normalization"]
    n = attrs["last_dim_size"] or 2 * (x.shape[axes[-1]] - 1)
    shape = [x.shape[a] for a in axes[:-1]] + [n]
    real = np.float32 if x.dtype == np.complex64 else np.float64
    if x.shape[axes[-1]] == 0 and n > 0:
        out = list(x.shape)
        out[axes[-1]] = n
        return {"Out": np.zeros(out, real)}
    if attrs["forward"]:
        return {"Out": np.fft.irfftn(np.conj(x), s=shape, axes=axes, norm=_SWAP[norm]).astype(real)}
    return {"Out": np.fft.irfftn(x, s=shape, axes=axes, norm=norm).astype(real)}


def _stft(ins, attrs):
    x, w = ins["X"], ins["Window"]
    n, hop = attrs["n_fft"], attrs["hop_length"]
    frames = 1 + (x.shape[-1] - n) // hop
    idx = np.arange(n)[:, None] + hop * np.arange(frames)[None, :]
    windowed = x[..., idx] * w[:, None]  # [..., n_fft, frames]
    norm = "ortho" if attrs["normalized"] else "backward"
    out = np.fft.rfft(windowed, axis=-2, norm=norm) if attrs["onesided"] else np.fft.fft(windowed, axis=-2, norm=norm)
    return {"Out": out.astype(_complex_of(x))}


FFT_C2C = fresh_kernel(_fft_c2c, "fft_c2c_out")
FFT_R2C = fresh_kernel(_fft_r2c, "fft_r2c_out")
FFT_C2R = fresh_kernel(_fft_c2r, "fft_c2r_out")
STFT = fresh_kernel(_stft, "stft_out")
fft_c2c = adapter(fft_c2c_meta, FFT_C2C, "fft_c2c")  # (the kernels by name: CUDA's host fallbacks)
fft_r2c = adapter(fft_r2c_meta, FFT_R2C, "fft_r2c")
fft_c2r = adapter(fft_c2r_meta, FFT_C2R, "fft_c2r")
stft = adapter(stft_meta, STFT, "stft")
