"""CUDA twin of kernels/cpu/pyramid_hash.py: hashing n-grams is host work (Fluid's op has a CPU kernel
only); the CPU kernel runs on the host, its results copied over."""

from ..cpu import pyramid_hash as _cpu
from ._host import on_host

pyramid_hash = on_host(_cpu.pyramid_hash)
pyramid_hash_grad = on_host(_cpu.pyramid_hash_grad)
