"""CUDA kernels of pe_cli/ops/channel_rearranging.py: their CPU twins on the host (kernels/cuda/_host.py; fixed
permutations; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("pixel_unshuffle", "pixel_unshuffle_grad", "channel_shuffle", "channel_shuffle_grad")
