"""CUDA twin of kernels/cpu/detection_metric.py: detection_map runs on the host, as Fluid's has a CPU
kernel only (a few hundred boxes a batch)."""

from ..cpu import detection_metric as _cpu
from . import runtime as rt


def detection_map(ins, attrs, ctx):
    """On the host, as Fluid's (its detection_map op has a CPU kernel only)."""
    outs = _cpu.detection_map({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {k: rt.to_device(v) for k, v in outs.items()}
