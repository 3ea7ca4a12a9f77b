"""CUDA twin of kernels/cpu/detection_metric.py: detection_map runs on the host, as Fluid's has a CPU
kernel only (a few hundred boxes a batch)."""

from . import runtime as rt
from ._host import given_cpu_kernel


def detection_map(ins, attrs, cpu_detection_map):
    """On the host, as Fluid's (its detection_map op has a CPU kernel only)."""
    outs = cpu_detection_map({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


HOST_OPS = {
    "detection_map": given_cpu_kernel(detection_map),
}
