"""The multi-device graph's collectives on CPU devices: all-reduce (sum in device order, so every
run gives the same numbers) and broadcast. CPU devices share the host's memory: a broadcast hands
every device the same array (kernels never modify their inputs, so sharing is safe). Also: the
out-kernels of the ring collective ops a program may hold, on a ring of one process."""

import os

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows, concat
from ...shapes import collectives as rules
from ..structured import adapter
from .elementwise import sum_of_launches


def all_reduce(arrays, devices, targets):
    """Sum of ``arrays`` (one per device of ``devices``, in that order), delivered to every device
    of ``targets``; returns the arrays in ``targets`` order (here one array, shared). Row-sparse
    gradients (SelectedRows) are concatenated, rows and values in device order: their sum, as Fluid
    gathers them."""
    if isinstance(arrays[0], SelectedRows):
        return [concat(arrays)] * len(targets)
    total = arrays[0] if len(arrays) == 1 else np.add(arrays[0], arrays[1])
    for a in arrays[2:]:
        np.add(total, a, out=total)  # device order: the same sum every run
    return [total] * len(targets)


def reduce_launches(keys, out, table):
    """A planned step's launches of a reduce onto the device owning a parameter: the gradients ``keys``
    (one a device, in device order, as all_reduce sums them) summed into ``out``, that device's own,
    in place: the sum op's loops (elementwise.sum_of_launches); None where they are no float arrays
    of one shape and dtype (the collective runs)."""
    return sum_of_launches(keys, out, table, writes=())


def broadcast(array, root, targets):
    """``array`` (on device ``root``) on every device of ``targets``."""
    return [array] * len(targets)


def all_reduce_coalesced(groups, devices, targets):
    """``groups[i]``: the arrays of device ``devices[i]``. Their sums over the devices, each summed
    as ``all_reduce`` sums (device order, so each number is the one a per-array all-reduce gives),
    written end to end into one buffer in one call; returns, per target, the sums as views of it.
    CPU devices share the host's memory, so the inputs are read where they are (no copy into a
    send buffer). Arrays of mixed dtypes are summed one by one."""
    first = groups[0]
    if (
        len(groups) == 1
        or len({a.dtype for arrays in groups for a in arrays}) != 1
        or any(isinstance(a, SelectedRows) for a in first)
    ):
        per_array = [all_reduce([arrays[k] for arrays in groups], devices, targets)[0] for k in range(len(first))]
        return [per_array] * len(targets)
    buffer = np.empty(sum(a.size for a in first), dtype=first[0].dtype)
    sums, start = [], 0
    for k, a in enumerate(first):
        total = buffer[start : start + a.size].reshape(a.shape)
        np.add(a, groups[1][k], out=total)
        for arrays in groups[2:]:
            np.add(total, arrays[k], out=total)  # device order, as all_reduce
        sums.append(total)
        start += a.size
    return [sums] * len(targets)


# -- the ring collective ops of a program (pe_cli/ops/collective.py), in a program of one process: out-kernels (meta
# rules: shapes/collectives.py) --


def _one_process(attrs):
    trainers = os.environ.get("PADDLE_TRAINERS_NUM", "1").strip() or "1"
    nranks = attrs.get("nranks", 1)
    if nranks != 1 or trainers != "1":
        raise PeError(
            f"a ring collective op runs in a program of one process only (here nranks={nranks}, "
            f"PADDLE_TRAINERS_NUM={trainers}); let CompiledProgram or fleet all-reduce across "
            f"devices and trainers"
        )


def ring_identity_out(ins, outs, attrs, meta):
    """c_allreduce_*, c_broadcast, c_allgather, c_reducescatter, c_sync_*, allreduce, broadcast: Out is X (the
    Meta's alias) on a ring of one; a ring of several refused (the environment read on every call)."""
    _one_process(attrs)


def ring_setup_out(ins, outs, attrs, meta):
    """c_gen_nccl_id, c_comm_init, c_comm_init_all: nothing to set up for a ring of one (the ring's id,
    c_gen_nccl_id's Out, the empty array handed)."""
    _one_process(attrs)


ring_identity_out.launches = ring_setup_out.launches = None

# the kernels by name CUDA's kernels are given (kernels/cuda/collectives.py's HOST_OPS): the adapters (X's rule: on a
# ring of several the out-kernel refuses before any output is read)
ring_identity = adapter(rules.ring_x_meta, ring_identity_out, "ring_identity")
ring_setup = adapter(rules.ring_setup_meta, ring_setup_out, "ring_setup")
