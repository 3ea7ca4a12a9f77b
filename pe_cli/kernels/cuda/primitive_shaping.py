"""CUDA kernels of the structural primitive ops (ops/primitive_shaping.py): their CPU twins on the host
(kernels/cuda/_host.py; numpy's reshapes, slices and gathers; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "broadcast_p",
    "cast_p",
    "concat_p",
    "fill_constant_p",
    "gather_p",
    "matmul_p",
    "reduce_sum_p",
    "reshape_p",
    "scatter_add_p",
    "select_p",
    "slice_assign_p",
    "slice_select_p",
    "split_p",
    "transpose_p",
)
