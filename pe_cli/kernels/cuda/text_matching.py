"""CUDA twin of kernels/cpu/text_matching.py: per-pair blocks whose sizes the LoD decides, run on the
host (kernels/cuda/_host.py), as sequence_erase and the detection ops whose sizes follow the data."""

from ..cpu import text_matching as _cpu
from ._host import on_host

match_matrix_tensor = on_host(_cpu.match_matrix_tensor)
match_matrix_tensor_grad = on_host(_cpu.match_matrix_tensor_grad)
var_conv_2d = on_host(_cpu.var_conv_2d)
var_conv_2d_grad = on_host(_cpu.var_conv_2d_grad)
sequence_topk_avg_pooling = on_host(_cpu.sequence_topk_avg_pooling)
sequence_topk_avg_pooling_grad = on_host(_cpu.sequence_topk_avg_pooling_grad)
