"""CUDA kernels of pe_cli/ops/adamw.py: their CPU twins on the host (kernels/cuda/_host.py; correct on a GPU
place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "adamw", "check_finite_and_unscale", "update_loss_scaling", "merged_adam", "pow2_decay_with_linear_warmup"
)
