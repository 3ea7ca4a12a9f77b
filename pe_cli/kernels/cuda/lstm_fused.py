"""CUDA kernels of ops/lstm_fused.py: Fluid has CPU kernels only, and falls back to them on a GPU
place; so does pe (the CPU kernels on the host, _host.py)."""

from ..cpu import lstm_fused as _cpu
from ._host import on_host

fusion_lstm = on_host(_cpu.fusion_lstm)
fused_embedding_fc_lstm = on_host(_cpu.fused_embedding_fc_lstm)
attention_lstm = on_host(_cpu.attention_lstm)
