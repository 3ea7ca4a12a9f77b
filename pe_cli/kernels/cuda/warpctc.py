"""CUDA twin of kernels/cpu/warpctc.py: the recursions run on the host (the loss and its gradient
wrt the logits come back together, as warp-ctc computes them) and the results are copied over."""
from ..cpu import warpctc as _cpu
from . import runtime as rt


def warpctc(ins, attrs):
    grad, loss = _cpu.ctc({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {"WarpCTCGrad": rt.to_device(grad), "Loss": rt.to_device(loss)}


def warpctc_grad(ins, attrs):
    host = {k: rt.to_host(v) for k, v in ins.items()}
    out = _cpu.scale_rows(host["WarpCTCGrad"], host["Loss@GRAD"], host, attrs)
    return {"Logits@GRAD": rt.to_device(out.astype(host["WarpCTCGrad"].dtype, copy=False))}
