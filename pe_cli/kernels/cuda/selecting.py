"""CUDA kernels of the selecting family: their CPU twins on the host (kernels/cuda/_host.py: a sort along an
axis, a boolean index whose size the data decides; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("top_k_v2", "top_k_v2_grad", "masked_select", "masked_select_grad")
