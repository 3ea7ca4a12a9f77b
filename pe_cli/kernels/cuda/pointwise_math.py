"""CUDA kernels of the pointwise_math family: their CPU twins on the host (kernels/cuda/_host.py; numpy's
formulas, exactly the CPU's values; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops(
    "silu",
    "silu_grad",
    "celu",
    "celu_grad",
    "tan",
    "tan_grad",
    "acosh",
    "acosh_grad",
    "asinh",
    "asinh_grad",
    "atanh",
    "atanh_grad",
    "log2",
    "log2_grad",
    "log10",
    "log10_grad",
    "trunc",
    "trunc_grad",
    "conj",
    "conj_grad",
    "logit",
    "logit_grad",
    "atan2",
    "atan2_grad",
    "elementwise_fmax",
    "elementwise_fmax_grad",
    "elementwise_fmin",
    "elementwise_fmin_grad",
    "elementwise_heaviside",
    "elementwise_heaviside_grad",
    "lerp",
    "lerp_grad",
)
