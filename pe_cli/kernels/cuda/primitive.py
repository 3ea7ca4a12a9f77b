"""CUDA kernels of the primitive family: their CPU twins on the host (kernels/cuda/_host.py; numpy's
formulas, exactly the CPU's values; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "sin_p",
    "cos_p",
    "tanh_p",
    "exp_p",
    "log_p",
    "erf_p",
    "sqrt_p",
    "rsqrt_p",
    "abs_p",
    "add_p",
    "sub_p",
    "mul_p",
    "div_p",
    "max_p",
    "pow_p",
    "eq_p",
    "ne_p",
    "gt_p",
    "ge_p",
)
