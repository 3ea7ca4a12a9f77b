"""CUDA kernels of ops/lstm_fused.py: Fluid has CPU kernels only, and falls back to them on a GPU
place; so does pe (the CPU kernels on the host, _host.py)."""

from ._host import host_ops

HOST_OPS = host_ops("fusion_lstm", "fused_embedding_fc_lstm", "attention_lstm")
