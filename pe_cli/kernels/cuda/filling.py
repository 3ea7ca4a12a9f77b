"""CUDA kernels of pe_cli/ops/filling.py: their CPU twins on the host, the results copied over
(kernels/cuda/_host.py: small fills; correct on a GPU place, not fast)."""

from ..cpu import filling as _cpu
from ._host import on_host

for _name in ("fill_any", "fill_any_grad", "empty", "full_int_array", "tril_indices", "triu_indices", "logspace"):
    globals()[_name] = on_host(getattr(_cpu, _name))
