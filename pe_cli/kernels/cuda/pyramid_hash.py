"""CUDA twin of kernels/cpu/pyramid_hash.py: hashing n-grams is host work (Fluid's op has a CPU kernel
only); the CPU kernel runs on the host, its results copied over."""

from ._host import host_ops

HOST_OPS = host_ops("pyramid_hash", "pyramid_hash_grad")
