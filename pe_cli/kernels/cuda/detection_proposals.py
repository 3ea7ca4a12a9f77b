"""CUDA twin of kernels/cpu/detection_proposals.py: the proposals' sizes depend on the data (sorting,
NMS, levels), so these run the CPU kernels on the host and copy the results over, as unique does."""

from ._host import host_ops


HOST_OPS = host_ops("generate_proposals", "distribute_fpn_proposals", "collect_fpn_proposals", "generate_proposals_v2")
