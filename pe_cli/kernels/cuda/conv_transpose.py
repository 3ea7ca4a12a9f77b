"""CUDA twin of kernels/cpu/conv_transpose.py: the same role swap over the CUDA conv2d kernels."""
from ..cpu.conv_transpose import transpose_kernels
from . import nn

conv2d_transpose, conv2d_transpose_grad_input, conv2d_transpose_grad_filter = transpose_kernels(
    nn.conv2d, nn.conv2d_grad_input, nn.conv2d_grad_filter)
