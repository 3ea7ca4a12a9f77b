"""CUDA kernels that run their CPU twin on the host: the inputs copied over (lists of them too, element by
element, a missing one staying None), the CPU kernel run, the outputs copied back (a LoD the values decide
passes through the kernel's context; attributes stay on the host). For ops whose work is
index bookkeeping rather than arithmetic (tree lookups, samplers, windows), ops whose outputs' sizes depend
on the data (NMS, proposals, split_lod_tensor) and ops whose device kernels are not written yet (conv3d,
data_norm, spectral_norm, nce, deformable_conv, ...): correct on a GPU place, not fast."""

from ...base.tensor_array import TensorArray
from ..context import wraps
from . import runtime as rt


def _moved(value, move):
    """A list's items moved (a tensor array keeps its LoDs)."""
    items = [None if a is None else move(a) for a in value]
    return TensorArray(items, value.lods) if isinstance(value, TensorArray) else items


def _host(value):
    if isinstance(value, list):
        return _moved(value, rt.to_host)
    return rt.to_host(value)


def _device(value):
    if isinstance(value, list):
        return _moved(value, rt.to_device)
    out = rt.to_device(value)
    return out.reshape(()) if getattr(value, "ndim", None) == 0 else out  # a 0-D value stays 0-D


def on_host(cpu_kernel):
    """The CUDA kernel of an op computed by ``cpu_kernel`` on the host."""

    def kernel(ins, attrs, *ctx):
        outs = cpu_kernel({k: _host(v) for k, v in ins.items()}, attrs, *ctx)
        return {k: _device(v) for k, v in outs.items()}

    return wraps(cpu_kernel, kernel)
