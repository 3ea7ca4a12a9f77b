"""Kernels of ops/detection_nms.py on a GPU. multiclass_nms, multiclass_nms2, matrix_nms,
locality_aware_nms and retinanet_detection_output (greedy or sorting, outputs whose size depends on
the data) run the CPU kernels on the host and copy the results over, as unique and where_index do."""

from ..cpu import detection_nms as _cpu
from . import runtime as rt
from ._host import on_host as _on_host


multiclass_nms = _on_host(_cpu.multiclass_nms)
multiclass_nms2 = _on_host(_cpu.multiclass_nms2)
matrix_nms = _on_host(_cpu.matrix_nms)
locality_aware_nms = _on_host(_cpu.locality_aware_nms)


def retinanet_detection_output(ins, attrs, ctx):
    host = {k: [rt.to_host(a) for a in v] if isinstance(v, list) else rt.to_host(v) for k, v in ins.items()}
    outs = _cpu.retinanet_detection_output(host, attrs, ctx)
    return {"Out": rt.to_device(outs["Out"])}


multiclass_nms3 = _on_host(_cpu.multiclass_nms3)
nms = _on_host(_cpu.nms)
