"""CUDA twin of kernels/cpu/detection_retinanet.py: the detections' count depends on the data, so it
runs the CPU kernel on the host and copies the result over, as unique does."""
from ..cpu import detection_retinanet as _cpu
from . import runtime as rt


def retinanet_detection_output(ins, attrs):
    host = {k: [rt.to_host(a) for a in v] if isinstance(v, list) else rt.to_host(v) for k, v in ins.items()}
    outs = _cpu.retinanet_detection_output(host, attrs)
    return {"Out": rt.to_device(outs["Out"]), "@LOD": outs["@LOD"]}
