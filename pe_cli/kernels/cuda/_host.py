"""``on_host(cpu_kernel)``: a CUDA kernel that runs the CPU kernel on values read back to the host
and sends its outputs over, for ops whose work is index bookkeeping rather than arithmetic (tree
lookups, samplers, windows). Lists (duplicable slots) go element by element; ``@LOD`` / ``@LODS``
(LoD the values decide) and attributes stay on the host."""
from . import runtime as rt


def _host(value):
    if isinstance(value, list):
        return [None if a is None else rt.to_host(a) for a in value]
    return rt.to_host(value)


def _device(slot, value):
    if slot.startswith("@"):
        return value
    if isinstance(value, list):
        return [None if a is None else rt.to_device(a) for a in value]
    return rt.to_device(value)


def on_host(cpu_kernel):
    def kernel(ins, attrs):
        outs = cpu_kernel({k: _host(v) for k, v in ins.items()}, attrs)
        return {k: _device(k, v) for k, v in outs.items()}
    kernel.__name__ = cpu_kernel.__name__
    return kernel
