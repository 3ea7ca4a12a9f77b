"""viterbi_decode on a GPU place: its CPU twin on the host (kernels/cuda/_host.py)."""

from ..cpu import viterbi as _cpu
from ._host import on_host

viterbi_decode = on_host(_cpu.viterbi_decode)
