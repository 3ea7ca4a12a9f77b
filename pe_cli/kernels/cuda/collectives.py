"""The multi-device graph's collectives on GPUs: all-reduce (sum in device order, so every run
gives the same numbers as the CPU engine) and broadcast. Arrays cross devices with peer copies
where the GPUs can reach each other and through the host otherwise (runtime.copy_to)."""

import contextlib

from numba import cuda

from . import runtime as rt
from ._host import as_is, given_cpu_kernel
from ._elementwise import Binary
from .selected_rows import concat
from ...base.selected_rows import SelectedRows

_add = Binary(cuda.jit(device=True, inline=True)(lambda a, b, p, q: a + b))


def _kernels_on(device_id):
    """Launch context for collectives, which run on executor threads outside any op."""
    stack = contextlib.ExitStack()
    if rt.simulated():
        stack.enter_context(rt._sim_lock)
    stack.enter_context(rt.device(device_id))
    return stack


def all_reduce(arrays, devices, targets):
    """Sum of ``arrays`` (one per device of ``devices``, in that order), delivered to every device
    of ``targets``; returns the arrays in ``targets`` order. Row-sparse gradients (SelectedRows) are
    concatenated on the first device, in device order, then copied to the others."""
    root = devices[0]
    if isinstance(arrays[0], SelectedRows):
        with _kernels_on(root):
            total = concat([a.with_arrays(a.rows, rt.copy_to(a.values, root)) for a in arrays])
        return [total.with_arrays(total.rows, v) for v in broadcast(total.values, root, targets)]
    with _kernels_on(root):
        total = arrays[0]
        for a in arrays[1:]:
            total = _add(total, rt.copy_to(a, root))
    return broadcast(total, root, targets)


def broadcast(array, root, targets):
    """``array`` (on device ``root``) on every device of ``targets``: the same array on the root,
    a copy elsewhere."""
    out = []
    for d in targets:
        if d == root:
            out.append(array)
        else:
            with _kernels_on(d):
                out.append(rt.copy_to(array, d))
    return out


def all_reduce_coalesced(groups, devices, targets):
    """``groups[i]``: the arrays of device ``devices[i]``; returns, per target, their sums over the
    devices. On CUDA devices each array is still summed alone (no buffer is coalesced yet): the
    same numbers as ``all_reduce``, one bucket node in the graph."""
    sums = [all_reduce([arrays[k] for arrays in groups], devices, targets) for k in range(len(groups[0]))]
    return [[per_target[t] for per_target in sums] for t in range(len(targets))]


def ring_setup(ins, attrs, cpu_ring_setup):
    """The CPU's (nothing to set up for a ring of one), its empty ring id on the device."""
    return {"Out": rt.to_device(cpu_ring_setup(ins, attrs)["Out"])}


HOST_OPS = {
    "ring_identity": as_is,  # the ring ops of one process: no device work
    "ring_setup": given_cpu_kernel(ring_setup),
}
