"""CUDA kernels of the structural primitive ops (ops/primitive_shaping.py): their CPU twins on the host
(kernels/cuda/_host.py; numpy's reshapes, slices and gathers; correct on a GPU place, not fast)."""

from ...shapes.primitive_shaping import OPS
from ._host import host_ops

HOST_OPS = host_ops(*OPS)
