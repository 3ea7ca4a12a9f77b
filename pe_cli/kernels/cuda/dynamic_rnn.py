"""DynamicRNN on CUDA: not yet (its kernels gather rows with numpy); lod_reset passes X through."""
from ..cpu.dynamic_rnn import dynamic_recurrent, dynamic_recurrent_grad, lod_reset  # noqa: F401
