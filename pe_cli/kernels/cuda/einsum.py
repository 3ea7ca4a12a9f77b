"""CUDA kernels of einsum: the CPU's numpy einsum on the host (correct on a GPU place, not fast)."""

from ..cpu import einsum as _cpu
from ._host import on_host

einsum = on_host(_cpu.einsum)
einsum_grad = on_host(_cpu.einsum_grad)
