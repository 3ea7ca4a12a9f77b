"""CUDA kernels of identity_loss: their CPU twins on the host (kernels/cuda/_host.py)."""

from ..cpu import loss_identity as _cpu
from ._host import on_host

identity_loss, identity_loss_grad = on_host(_cpu.identity_loss), on_host(_cpu.identity_loss_grad)
