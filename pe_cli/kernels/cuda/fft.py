"""paddle.fft's kernels on a GPU place: the CPU's (numpy's FFT) on the host (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("fft_c2c", "fft_r2c", "fft_c2r", "stft")
