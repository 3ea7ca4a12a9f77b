"""DynamicRNN on CUDA: the CPU kernels with this device's transfers; the steps run on the device."""

from . import runtime as rt
from ._host import host_ops, with_args

HOST_OPS = host_ops("dynamic_recurrent", "dynamic_recurrent_grad", wrap=with_args(rt.to_device, rt.to_host))
