"""CUDA twin of kernels/cpu/detection_target.py: the sampled targets' sizes depend on the data and the
sampling draws on the host generator, so it runs the CPU kernel on the host and copies the results
over, as unique does."""

from ..cpu import detection_target as _cpu
from . import runtime as rt


def rpn_target_assign(ins, attrs, ctx):
    outs = _cpu.rpn_target_assign({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {k: rt.to_device(v) for k, v in outs.items()}


def retinanet_target_assign(ins, attrs, ctx):
    outs = _cpu.retinanet_target_assign({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {k: rt.to_device(v) for k, v in outs.items()}


def generate_proposal_labels(ins, attrs, ctx):
    outs = _cpu.generate_proposal_labels({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {k: rt.to_device(v) for k, v in outs.items()}


def generate_mask_labels(ins, attrs, ctx):
    outs = _cpu.generate_mask_labels({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {k: rt.to_device(v) for k, v in outs.items()}
