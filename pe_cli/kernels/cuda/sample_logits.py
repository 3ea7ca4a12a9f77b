"""CUDA twin of kernels/cpu/sample_logits.py: the sampling draws on the host with the CPU kernel's
generator, as the other random ops; the gradient adds back atomically."""
from numba import cuda

from ..cpu import sample_logits as _cpu
from . import runtime as rt
from ._launch import flat, grid, zeros


def sample_logits(ins, attrs):
    outs = _cpu.sample({k: rt.to_host(v) for k, v in ins.items()}, attrs)
    return {k: rt.to_device(v) for k, v in outs.items()}


@cuda.jit
def _scatter(samples, d, dx, width, classes):
    i = cuda.grid(1)
    step = cuda.gridsize(1)
    while i < d.size:
        cuda.atomic.add(dx, (i // width) * classes + samples[i], d[i])
        i += step


def sample_logits_grad(ins, attrs):
    logits, samples, d = ins["Logits"], ins["Samples"], ins["SampledLogits@GRAD"]
    dx = zeros(logits.shape, logits.dtype)
    if d.size:
        _scatter[grid(d.size)](flat(samples), flat(d), flat(dx), samples.shape[1], logits.shape[1])
    return {"Logits@GRAD": dx}
