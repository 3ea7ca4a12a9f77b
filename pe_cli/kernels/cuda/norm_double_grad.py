"""CUDA twins of kernels/cpu/norm_double_grad.py: a gradient of a gradient, rare enough (a gradient
penalty, a double-gradient check) to be computed on the host."""

from ..cpu import norm_double_grad as _cpu
from ._host import on_host

instance_norm_grad_grad = on_host(_cpu.instance_norm_grad_grad)
batch_norm_grad_grad = on_host(_cpu.batch_norm_grad_grad)
