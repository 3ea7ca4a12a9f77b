"""CUDA kernels of pe_cli/ops/channel_rearranging.py: their CPU twins on the host (kernels/cuda/_host.py; fixed
permutations; correct on a GPU place, not fast)."""

from ..cpu import channel_rearranging as _cpu
from ._host import on_host

for _name in ("pixel_unshuffle", "channel_shuffle"):
    globals()[_name] = on_host(getattr(_cpu, _name))
    globals()[f"{_name}_grad"] = on_host(getattr(_cpu, f"{_name}_grad"))
