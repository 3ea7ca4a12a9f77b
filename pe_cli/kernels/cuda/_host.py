"""CUDA kernels that run their CPU twin on the host: the inputs copied over (lists of them too, element by
element, a missing one staying None), the CPU kernel run, the outputs copied back (a LoD the values decide
passes through the kernel's context; attributes stay on the host). For ops whose work is
index bookkeeping rather than arithmetic (tree lookups, samplers, windows), ops whose outputs' sizes depend
on the data (NMS, proposals, split_lod_tensor) and ops whose device kernels are not written yet (conv3d,
data_norm, spectral_norm, nce, deformable_conv, ...): correct on a GPU place, not fast.

A module names those ops in ``HOST_OPS``, op name -> how the CPU kernel runs on a GPU place: ``on_host``,
``out_to_device``, ``as_is``, ``with_args(...)``, ``given_cpu_kernel(kernel)``, ``on_host_when(...)`` (below)
or a module's own; ``host_ops(*names, wrap=...)`` makes the rows. ``kernels.kernel_of`` puts the two
together, so no CUDA module imports a CPU kernel."""

import functools

from ...base.tensor_array import TensorArray
from ..context import takes_context, wraps
from . import runtime as rt


def _moved(value, move):
    """A list's items moved (a tensor array keeps its LoDs)."""
    items = [None if a is None else move(a) for a in value]
    return TensorArray(items, value.lods) if isinstance(value, TensorArray) else items


def _host(value):
    if isinstance(value, list):
        return _moved(value, rt.to_host)
    return rt.to_host(value)


def _device(value):
    if isinstance(value, list):
        return _moved(value, rt.to_device)
    out = rt.to_device(value)
    return out.reshape(()) if getattr(value, "ndim", None) == 0 else out  # a 0-D value stays 0-D


def on_host(cpu_kernel):
    """The CUDA kernel of an op computed by ``cpu_kernel`` on the host."""

    def kernel(ins, attrs, *ctx):
        outs = cpu_kernel({k: _host(v) for k, v in ins.items()}, attrs, *ctx)
        return {k: _device(v) for k, v in outs.items()}

    return wraps(cpu_kernel, kernel)


def out_to_device(cpu_kernel):
    """The CUDA kernel of an op whose CPU kernel reads its inputs' shapes or none (fills, random draws):
    the CPU kernel run on the inputs as they are, its ``Out`` copied to the device."""

    def kernel(ins, attrs, *ctx):
        return {"Out": rt.to_device(cpu_kernel(ins, attrs, *ctx)["Out"])}

    return wraps(cpu_kernel, kernel)


def on_host_when(host_form, device_kernel):
    """A wrap: the CPU kernel on the host where ``host_form(attrs)`` (a form the device kernel does not
    compute), ``device_kernel`` otherwise."""

    def wrap(cpu_kernel):
        host = on_host(cpu_kernel)

        def kernel(ins, attrs, *ctx):
            chosen = host if host_form(attrs) else device_kernel
            return chosen(ins, attrs, *ctx) if ctx and takes_context(chosen) else chosen(ins, attrs)

        kernel.__name__ = device_kernel.__name__
        kernel.takes_context = takes_context(host) or takes_context(device_kernel)
        return kernel

    return wrap


def host_ops(*names, wrap=on_host):
    """``HOST_OPS`` rows: each op of ``names`` run on the host by ``wrap``."""
    return dict.fromkeys(names, wrap)


def as_is(cpu_kernel):
    """The CPU kernel unchanged on a GPU place: ops with no device values to move (feeds and fetches, the
    dependency ops, readers, the parameter service, whole blocks run through the executor)."""
    return cpu_kernel


def with_args(*args, **kwargs):
    """A wrap calling the CPU kernel with this device's arguments after ``ins, attrs`` (and its context,
    where it takes one): the device's zeros, sum or copies, for a driver both devices share."""

    def wrap(cpu_kernel):
        def kernel(ins, attrs, *ctx):
            return cpu_kernel(ins, attrs, *ctx, *args, **kwargs)

        return wraps(cpu_kernel, kernel)

    return wrap


def given_cpu_kernel(cuda_kernel):
    """A wrap for a CUDA kernel ``cuda_kernel(ins, attrs, cpu_kernel)`` that does part of its work with its
    op's CPU kernel (on host copies of some inputs, or for some attributes only); the CPU kernel is told
    the call's context where it takes one, and so is ``cuda_kernel`` where it names a fourth parameter
    ``ctx`` (``cuda_kernel(ins, attrs, cpu_kernel, ctx)``)."""
    told = takes_context(cuda_kernel)

    def wrap(cpu_kernel):
        def kernel(ins, attrs, *ctx):
            cpu = functools.partial(_told, cpu_kernel, ctx) if ctx else cpu_kernel
            return cuda_kernel(ins, attrs, cpu, *ctx) if told else cuda_kernel(ins, attrs, cpu)

        kernel.__name__ = cuda_kernel.__name__
        kernel.takes_context = takes_context(cpu_kernel) or told
        return kernel

    return wrap


def _told(cpu_kernel, ctx, ins, attrs):
    return cpu_kernel(ins, attrs, *ctx)
