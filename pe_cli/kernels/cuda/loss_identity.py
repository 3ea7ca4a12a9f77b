"""CUDA kernels of identity_loss: their CPU twins on the host (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("identity_loss", "identity_loss_grad")
