"""CUDA twin of kernels/cpu/instag.py: which instances stay depends on their tags, so the selection
runs on the host (as sequence_erase does) and the results are copied over."""

from ..cpu import instag as _cpu
from . import runtime as rt


def filter_by_instag(ins, attrs, ctx):
    outs, lods = _cpu.select(
        rt.to_host(ins["Ins"]), rt.to_host(ins["Ins_tag"]), rt.to_host(ins["Filter_tag"]), attrs, ctx
    )
    ctx.set_lod_map(lods)
    return {k: rt.to_device(v) for k, v in outs.items()}


def filter_by_instag_grad(ins, attrs):
    x = ins["Ins"]
    dx = _cpu.scatter_back(
        tuple(x.shape), x.dtype, rt.to_host(ins["LossWeight"]), rt.to_host(ins["IndexMap"]), rt.to_host(ins["Out@GRAD"])
    )
    return {"Ins@GRAD": rt.to_device(dx)}
