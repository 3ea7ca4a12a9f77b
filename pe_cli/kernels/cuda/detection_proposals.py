"""CUDA twin of kernels/cpu/detection_proposals.py: the proposals' sizes depend on the data (sorting,
NMS, levels), so these run the CPU kernels on the host and copy the results over, as unique does."""
from ..cpu import detection_proposals as _cpu
from . import runtime as rt


def _host(value):
    return [rt.to_host(v) for v in value] if isinstance(value, list) else rt.to_host(value)


def _device(key, value):
    if key.startswith("@"):
        return value
    return [rt.to_device(v) for v in value] if isinstance(value, list) else rt.to_device(value)


def _on_host(kernel):
    def run(ins, attrs):
        outs = kernel({k: _host(v) for k, v in ins.items()}, attrs)
        return {k: _device(k, v) for k, v in outs.items()}
    run.__name__ = kernel.__name__
    return run


generate_proposals = _on_host(_cpu.generate_proposals)
distribute_fpn_proposals = _on_host(_cpu.distribute_fpn_proposals)
collect_fpn_proposals = _on_host(_cpu.collect_fpn_proposals)
