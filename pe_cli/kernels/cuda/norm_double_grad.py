"""CUDA twins of kernels/cpu/norm_double_grad.py: a gradient of a gradient, rare enough (a gradient
penalty, a double-gradient check) to be computed on the host."""

from ._host import host_ops

HOST_OPS = host_ops("instance_norm_grad_grad", "batch_norm_grad_grad")
