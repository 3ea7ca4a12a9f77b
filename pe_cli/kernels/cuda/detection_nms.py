"""Kernels of ops/detection_nms.py on a GPU. multiclass_nms, multiclass_nms2, matrix_nms,
locality_aware_nms and retinanet_detection_output (greedy or sorting, outputs whose size depends on
the data) run the CPU kernels on the host and copy the results over, as unique and where_index do."""

from ..cpu import detection_nms as _cpu
from . import runtime as rt
from ._host import host_ops


HOST_OPS = host_ops("multiclass_nms", "multiclass_nms2", "matrix_nms", "locality_aware_nms", "multiclass_nms3", "nms")


def retinanet_detection_output(ins, attrs):
    host = {k: [rt.to_host(a) for a in v] if isinstance(v, list) else rt.to_host(v) for k, v in ins.items()}
    outs = _cpu.retinanet_detection_output(host, attrs)
    return {"Out": rt.to_device(outs["Out"]), "@LOD": outs["@LOD"]}
