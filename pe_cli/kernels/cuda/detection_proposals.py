"""CUDA twin of kernels/cpu/detection_proposals.py: the proposals' sizes depend on the data (sorting,
NMS, levels), so these run the CPU kernels on the host and copy the results over, as unique does."""

from ..cpu import detection_proposals as _cpu
from ._host import on_host as _on_host


generate_proposals = _on_host(_cpu.generate_proposals)
distribute_fpn_proposals = _on_host(_cpu.distribute_fpn_proposals)
collect_fpn_proposals = _on_host(_cpu.collect_fpn_proposals)
generate_proposals_v2 = _on_host(_cpu.generate_proposals_v2)
