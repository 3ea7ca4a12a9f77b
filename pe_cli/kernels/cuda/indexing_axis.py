"""CUDA kernels of the indexing_axis family: their CPU twins on the host (kernels/cuda/_host.py: scatters
whose repeated places accumulate in order, as the CPU's ufunc.at; correct on a GPU place, not fast)."""

from ..cpu import indexing_axis as _cpu
from ._host import on_host

take_along_axis, take_along_axis_grad = on_host(_cpu.take_along_axis), on_host(_cpu.take_along_axis_grad)
put_along_axis, put_along_axis_grad = on_host(_cpu.put_along_axis), on_host(_cpu.put_along_axis_grad)
index_add, index_add_grad = on_host(_cpu.index_add), on_host(_cpu.index_add_grad)
fill_diagonal_tensor = on_host(_cpu.fill_diagonal_tensor)
fill_diagonal_tensor_grad = on_host(_cpu.fill_diagonal_tensor_grad)
