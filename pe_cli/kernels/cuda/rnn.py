"""CUDA kernels of Paddle 2.x's rnn op: their CPU twins on the host (kernels/cuda/_host.py; a sequential walk
over the time steps; correct on a GPU place, not fast)."""

from ..cpu import rnn as _cpu
from ._host import on_host

rnn, rnn_grad = on_host(_cpu.rnn), on_host(_cpu.rnn_grad)
