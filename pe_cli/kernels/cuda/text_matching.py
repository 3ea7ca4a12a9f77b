"""CUDA twin of kernels/cpu/text_matching.py: per-pair blocks whose sizes the LoD decides, run on the
host (kernels/cuda/_host.py), as sequence_erase and the detection ops whose sizes follow the data."""

from ._host import host_ops

HOST_OPS = host_ops(
    "match_matrix_tensor",
    "match_matrix_tensor_grad",
    "var_conv_2d",
    "var_conv_2d_grad",
    "sequence_topk_avg_pooling",
    "sequence_topk_avg_pooling_grad",
)
