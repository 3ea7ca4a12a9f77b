"""CUDA kernels of pe_cli/ops/linear_resize.py: their CPU twins on the host (kernels/cuda/_host.py; correct on
a GPU place, not fast)."""

from ..cpu import linear_resize as _cpu
from ._host import on_host

linear_interp_v2, linear_interp_v2_grad = on_host(_cpu.linear_interp_v2), on_host(_cpu.linear_interp_v2_grad)
linear_interp, linear_interp_grad = on_host(_cpu.linear_interp), on_host(_cpu.linear_interp_grad)
