"""CUDA kernels of pe_cli/ops/framing.py: their CPU twins on the host (kernels/cuda/_host.py; correct on a GPU
place, not fast)."""

from ..cpu import framing as _cpu
from ._host import on_host

frame, frame_grad = on_host(_cpu.frame), on_host(_cpu.frame_grad)
overlap_add, overlap_add_grad = on_host(_cpu.overlap_add), on_host(_cpu.overlap_add_grad)
