"""CUDA twin of kernels/cpu/ctc.py: ctc_align's output size depends on the ids, so it runs on the
host, as sequence_erase does."""
from ..cpu import ctc as _cpu
from . import runtime as rt


def ctc_align(ins, attrs):
    lengths = rt.to_host(ins["InputLength"]) if "InputLength" in ins else None
    outs, lod = _cpu.align(rt.to_host(ins["Input"]), attrs, lengths)
    outs = {k: rt.to_device(v) for k, v in outs.items()}
    if lod is not None:
        outs["@LOD"] = {"Output": lod}
    return outs
