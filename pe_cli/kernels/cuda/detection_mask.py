"""CUDA twin of kernels/cpu/detection_mask.py: the mask targets' count depends on the labels, so it
runs the CPU kernel on the host and copies the results over, as unique does."""
from ..cpu import detection_mask as _cpu
from . import runtime as rt


def generate_mask_labels(ins, attrs):
    outs = _cpu.generate_mask_labels({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: v if k.startswith("@") else rt.to_device(v) for k, v in outs.items()}
