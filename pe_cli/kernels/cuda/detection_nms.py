"""Kernels of ops/detection_nms.py on a GPU. multiclass_nms, multiclass_nms2, matrix_nms,
locality_aware_nms and retinanet_detection_output (greedy or sorting, outputs whose size depends on
the data) run the CPU kernels on the host and copy the results over, as unique and where_index do."""

from . import runtime as rt
from ._host import given_cpu_kernel, host_ops


def retinanet_detection_output(ins, attrs, cpu_retinanet_detection_output):
    host = {k: [rt.to_host(a) for a in v] if isinstance(v, list) else rt.to_host(v) for k, v in ins.items()}
    outs = cpu_retinanet_detection_output(host, attrs)
    return {"Out": rt.to_device(outs["Out"])}


HOST_OPS = {
    **host_ops("multiclass_nms", "multiclass_nms2", "matrix_nms", "locality_aware_nms", "multiclass_nms3", "nms"),
    "retinanet_detection_output": given_cpu_kernel(retinanet_detection_output),
}
