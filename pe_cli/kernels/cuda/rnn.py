"""CUDA kernels of Paddle 2.x's rnn op: their CPU twins on the host (kernels/cuda/_host.py; a sequential walk
over the time steps; correct on a GPU place, not fast)."""

from ._host import host_ops

HOST_OPS = host_ops("rnn", "rnn_grad")
