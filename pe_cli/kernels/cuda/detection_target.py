"""CUDA twin of kernels/cpu/detection_target.py: the sampled targets' sizes depend on the data and the
sampling draws on the host generator, so it runs the CPU kernel on the host and copies the results
over, as unique does."""

from . import runtime as rt
from ._host import given_cpu_kernel


def rpn_target_assign(ins, attrs, cpu_rpn_target_assign):
    outs = cpu_rpn_target_assign({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


def retinanet_target_assign(ins, attrs, cpu_retinanet_target_assign):
    outs = cpu_retinanet_target_assign({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


def generate_proposal_labels(ins, attrs, cpu_generate_proposal_labels):
    outs = cpu_generate_proposal_labels({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


def generate_mask_labels(ins, attrs, cpu_generate_mask_labels):
    outs = cpu_generate_mask_labels({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


HOST_OPS = {
    "rpn_target_assign": given_cpu_kernel(rpn_target_assign),
    "retinanet_target_assign": given_cpu_kernel(retinanet_target_assign),
    "generate_proposal_labels": given_cpu_kernel(generate_proposal_labels),
    "generate_mask_labels": given_cpu_kernel(generate_mask_labels),
}
