"""CUDA kernels of pe_cli/ops/bucketing.py: their CPU twins on the host (kernels/cuda/_host.py; searches and
counts whose sizes the data decides; correct on a GPU place, not fast)."""

from ..cpu import bucketing as _cpu
from ._host import on_host

for _name in ("searchsorted", "histogram", "repeat_interleave", "repeat_interleave_grad"):
    globals()[_name] = on_host(getattr(_cpu, _name))
