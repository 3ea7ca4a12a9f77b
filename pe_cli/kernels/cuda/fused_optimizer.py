"""CUDA twins of kernels/cpu/fused_optimizer.py: the fused update ops (pe_cli/ops/fused_optimizer.py)
run this device's update kernels (optimizer.py, one launch each) on each parameter in turn within
one op (pe_cli/kernels/fused_math.py), so the numbers are those of the separate updates."""

from ..fused_math import fused_update_kernels
from . import momentum, optimizer

_KERNELS = fused_update_kernels(momentum, optimizer)
fused_sgd = _KERNELS["fused_sgd"]
fused_momentum = _KERNELS["fused_momentum"]
fused_adam = _KERNELS["fused_adam"]
