"""CUDA kernels of pe_cli/ops/diagonals.py: their CPU twins on the host (kernels/cuda/_host.py; index
bookkeeping; correct on a GPU place, not fast)."""

from ..cpu import diagonals as _cpu
from ._host import on_host

for _name in ("diag_v2", "diagonal", "fill_diagonal"):
    globals()[_name] = on_host(getattr(_cpu, _name))
    globals()[f"{_name}_grad"] = on_host(getattr(_cpu, f"{_name}_grad"))
