"""DynamicRNN on CUDA: the CPU kernels with this device's transfers; the steps run on the device."""
from ..cpu import dynamic_rnn as _cpu
from ..seq_maps import reset_lod
from . import runtime as rt


def lod_reset(ins, attrs):
    x = ins["X"]
    y_values = (lambda: rt.to_host(ins["Y"])) if "Y" in ins else None
    return {"Out": x, "@LOD": {"Out": reset_lod(attrs, x.shape[0], y_values)}}


def dynamic_recurrent(ins, attrs):
    return _cpu.dynamic_recurrent(ins, attrs, rt.to_device, rt.to_host)


def dynamic_recurrent_grad(ins, attrs):
    return _cpu.dynamic_recurrent_grad(ins, attrs, rt.to_device, rt.to_host)
