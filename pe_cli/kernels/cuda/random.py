"""CUDA twins of kernels/cpu/random.py. Random ops draw on the host with the same numpy Generator
as the CPU kernels and copy the result over, so both devices initialize parameters identically;
random_crop draws its offsets on the host and copies the windows on the device; poisson draws its counts
on the host from the rates copied over."""

from . import runtime as rt
from ._host import host_ops, out_to_device
from ._launch import zeros
from ._strided import contiguous_strides, copy_window
from ..common import crop_offsets


HOST_OPS = {
    **host_ops(
        "uniform_random",
        "uniform_random_p",
        "gaussian_random",
        "truncated_gaussian_random",
        "seed",
        "randperm",
        wrap=out_to_device,
    ),
    **host_ops("uniform_random_batch_size_like", "gaussian_random_batch_size_like", "randint", "poisson", "dirichlet"),
}


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


def poisson_grad(ins, attrs):
    return {"X@GRAD": zeros(ins["Out@GRAD"].shape, ins["Out@GRAD"].dtype)}
