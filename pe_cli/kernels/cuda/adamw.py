"""CUDA kernels of pe_cli/ops/adamw.py: their CPU twins on the host (kernels/cuda/_host.py; correct on a GPU
place, not fast)."""

from ..cpu import adamw as _cpu
from ._host import on_host

adamw = on_host(_cpu.adamw)
check_finite_and_unscale = on_host(_cpu.check_finite_and_unscale)
update_loss_scaling = on_host(_cpu.update_loss_scaling)
merged_adam = on_host(_cpu.merged_adam)
pow2_decay_with_linear_warmup = on_host(_cpu.pow2_decay_with_linear_warmup)
