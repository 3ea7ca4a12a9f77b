"""paddle.fft's kernels on a GPU place: the CPU's (numpy's FFT) on the host (kernels/cuda/_host.py)."""

from ..cpu import fft as _cpu
from ._host import on_host

fft_c2c, fft_r2c, fft_c2r = on_host(_cpu.fft_c2c), on_host(_cpu.fft_r2c), on_host(_cpu.fft_c2r)
stft = on_host(_cpu.stft)
