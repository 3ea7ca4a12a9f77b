"""CUDA kernels of ops/lstm_cudnn.py: the CPU ones on the host (_host.py), correct on a GPU place but
not fast (Fluid's are cuDNN's)."""

from ..cpu import lstm_cudnn as _cpu
from ._host import on_host

cudnn_lstm = on_host(_cpu.cudnn_lstm)
cudnn_lstm_grad = on_host(_cpu.cudnn_lstm_grad)
