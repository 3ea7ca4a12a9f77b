"""CUDA twins of kernels/cpu/ctc.py, both on the host: ctc_align's output size depends on the ids, as
sequence_erase's does; warpctc's recursions run there (the loss and its gradient wrt the logits come
back together, as warp-ctc computes them) and the results are copied over."""

from ..cpu import ctc as _cpu
from . import runtime as rt


def ctc_align(ins, attrs, ctx):
    lengths = rt.to_host(ins["InputLength"]) if "InputLength" in ins else None
    outs, lod = _cpu.align(rt.to_host(ins["Input"]), attrs, ctx, lengths)
    outs = {k: rt.to_device(v) for k, v in outs.items()}
    if lod is not None:
        ctx.set_lod_map({"Output": lod})
    return outs


def warpctc(ins, attrs, ctx):
    grad, loss = _cpu.ctc({k: rt.to_host(v) for k, v in ins.items()}, attrs, ctx)
    return {"WarpCTCGrad": rt.to_device(grad), "Loss": rt.to_device(loss)}


def warpctc_grad(ins, attrs, ctx):
    host = {k: rt.to_host(v) for k, v in ins.items()}
    out = _cpu.scale_rows(host["WarpCTCGrad"], host["Loss@GRAD"], host, ctx)
    return {"Logits@GRAD": rt.to_device(out.astype(host["WarpCTCGrad"].dtype, copy=False))}
