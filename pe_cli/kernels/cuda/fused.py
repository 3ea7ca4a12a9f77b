"""CUDA twins of kernels/cpu/fused.py: the CUDA kernels of the ops the fused ops replace, called
in the same order within one op (pe_cli/kernels/fused_math.py)."""
from ..fused_math import fused_kernels, fusion_group_kernel
from . import activation, elementwise, nn

# fused_elemwise_activation, fused_batch_norm_act and their grads: module attributes, found by op type
globals().update(fused_kernels(activation, elementwise, nn))
fusion_group = fusion_group_kernel(__package__)
