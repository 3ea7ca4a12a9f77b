"""Kernels of ops/detection_nms.py on a GPU. multiclass_nms, multiclass_nms2, matrix_nms,
locality_aware_nms and retinanet_detection_output (greedy or sorting, outputs whose size depends on
the data) run the CPU kernels on the host and copy the results over, as unique and where_index do."""
from ..cpu import detection_nms as _cpu
from . import runtime as rt


def _on_host(cpu_kernel):
    def kernel(ins, attrs):
        outs = cpu_kernel({k: rt.to_host(v) for k, v in ins.items()}, attrs)
        return {k: (v if k == "@LOD" else rt.to_device(v)) for k, v in outs.items()}
    kernel.__name__ = cpu_kernel.__name__
    return kernel


multiclass_nms = _on_host(_cpu.multiclass_nms)
multiclass_nms2 = _on_host(_cpu.multiclass_nms2)
matrix_nms = _on_host(_cpu.matrix_nms)
locality_aware_nms = _on_host(_cpu.locality_aware_nms)


def retinanet_detection_output(ins, attrs):
    host = {k: [rt.to_host(a) for a in v] if isinstance(v, list) else rt.to_host(v) for k, v in ins.items()}
    outs = _cpu.retinanet_detection_output(host, attrs)
    return {"Out": rt.to_device(outs["Out"]), "@LOD": outs["@LOD"]}
