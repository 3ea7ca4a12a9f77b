"""CUDA twins of kernels/cpu/random.py. Random ops draw on the host with the same numpy Generator
as the CPU kernels and copy the result over, so both devices initialize parameters identically;
random_crop draws its offsets on the host and copies the windows on the device; poisson draws its counts
on the host from the rates copied over."""

from ..cpu import random as _cpu
from . import _host, control_flow as _control_flow, runtime as rt
from ._launch import zeros
from ._strided import contiguous_strides, copy_window
from .creation import _on_host
from ..common import crop_offsets


uniform_random = _on_host(_cpu.uniform_random)
gaussian_random = _on_host(_cpu.gaussian_random)
truncated_gaussian_random = _on_host(_cpu.truncated_gaussian_random)
seed = _on_host(_cpu.seed)


uniform_random_batch_size_like = _control_flow._on_host(_cpu.uniform_random_batch_size_like)
gaussian_random_batch_size_like = _control_flow._on_host(_cpu.gaussian_random_batch_size_like)


def random_crop(ins, attrs):
    """Offsets drawn on the host (as the CPU kernel draws them), then one strided copy per instance."""
    x = ins["X"]
    shape = list(attrs["shape"])
    xs = tuple(x.shape)
    k = len(xs) - len(shape)
    offsets, next_seed = crop_offsets(xs, attrs, rt.to_host(ins["Seed"]))
    out = rt.empty(xs[:k] + tuple(shape), x.dtype)
    inner = tuple(xs[k:])
    xstr, ostr = contiguous_strides((len(offsets),) + inner), contiguous_strides((len(offsets),) + tuple(shape))
    for i, off in enumerate(offsets):
        base = i * xstr[0] + sum(int(o) * s for o, s in zip(off, xstr[1:]))
        copy_window(x, out, tuple(shape), xstr[1:], ostr[1:], base, i * ostr[0])
    return {"Out": out, "SeedOut": rt.to_device(next_seed)}


randint = _control_flow._on_host(_cpu.randint)
randperm = _on_host(_cpu.randperm)


poisson = _host.on_host(_cpu.poisson)


def poisson_grad(ins, attrs):
    return {"X@GRAD": zeros(ins["Out@GRAD"].shape, ins["Out@GRAD"].dtype)}


dirichlet = _host.on_host(_cpu.dirichlet)
