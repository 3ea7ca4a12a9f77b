"""viterbi_decode on a GPU place: its CPU twin on the host (kernels/cuda/_host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("viterbi_decode")
