"""CUDA kernels of the indexing_axis family: their CPU twins on the host (kernels/cuda/_host.py: scatters
whose repeated places accumulate in order, as the CPU's ufunc.at; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "take_along_axis",
    "take_along_axis_grad",
    "put_along_axis",
    "put_along_axis_grad",
    "index_add",
    "index_add_grad",
    "fill_diagonal_tensor",
    "fill_diagonal_tensor_grad",
)
