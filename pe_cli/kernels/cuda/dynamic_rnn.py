"""DynamicRNN on CUDA: the CPU kernels with this device's transfers; the steps run on the device."""

from ..cpu import dynamic_rnn as _cpu
from . import runtime as rt


def dynamic_recurrent(ins, attrs, ctx):
    return _cpu.dynamic_recurrent(ins, attrs, ctx, rt.to_device, rt.to_host)


def dynamic_recurrent_grad(ins, attrs, ctx):
    return _cpu.dynamic_recurrent_grad(ins, attrs, ctx, rt.to_device, rt.to_host)
