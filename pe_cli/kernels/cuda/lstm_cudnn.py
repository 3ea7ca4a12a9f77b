"""CUDA kernels of ops/lstm_cudnn.py: the CPU ones on the host (_host.py), correct on a GPU place but
not fast (Fluid's are cuDNN's)."""

from ._host import host_ops

HOST_OPS = host_ops("cudnn_lstm", "cudnn_lstm_grad")
