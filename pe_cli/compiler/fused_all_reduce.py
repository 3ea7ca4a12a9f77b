"""``BuildStrategy.fuse_all_reduce_ops`` between the devices of one process: the gradients are
gathered into buckets of at most ``BUCKET_BYTES`` (32 MiB, the largest gradient alone when bigger),
in the order the backward pass finishes them, and each bucket is summed over the devices by one
``fused_all_reduce`` node instead of one ``all_reduce`` node per gradient (``LIMITS``: Fluid's
flags bounding a bucket's gradients and bytes). The node lays each
device's gradients end to end in one buffer, sums the buffers in device order (the collectives'
``all_reduce_coalesced``) and hands every device its gradients back as views of the sum, so every
number is the one the per-gradient all-reduce gives. A bucket is closed when the next gradient would
overflow it, before the first op that reads one of its gradients, and at the end of the graph.

With ``Reduce`` or several trainer processes the device all-reduce stays per gradient (the
processes' own all-reduce is bucketed by the same option, pe_cli/compiler/ssa_graph.py)."""

import math

import numpy as np

from .ssa_nodes import OpNode

FUSED_ALL_REDUCE = "fused_all_reduce"
BUCKET_BYTES = 32 << 20
# Fluid's FLAGS_fuse_parameter_groups_size and FLAGS_fuse_parameter_memory_size (MB), set through
# fluid.core._set_fuse_parameter_group_size / _set_fuse_parameter_memory_size: at most this many
# gradients, and this many bytes, in one bucket. A group size below 1 sets no count limit; a memory
# size of 0 or less keeps BUCKET_BYTES. They change the buckets, never the sums.
LIMITS = {"group_size": 0, "memory_bytes": 0}


def set_group_size(size):
    LIMITS["group_size"] = int(size)


def set_memory_size(megabytes):
    LIMITS["memory_bytes"] = int(float(megabytes) * (1 << 20)) if float(megabytes) > 0 else 0


class FusedAllReduceNode(OpNode):
    """Sums the gradients ``attrs['vars']`` over the devices in one collective call."""

    __slots__ = ()
    kind = FUSED_ALL_REDUCE
    dot_style = 'shape=box, style="rounded,filled,bold", fillcolor="#f6e6c4"'

    @property
    def var(self):
        names = self.attrs["vars"]
        return names[0] if len(names) == 1 else f"{len(names)} gradients"

    def describe(self):
        return f"fused all_reduce of {', '.join(self.attrs['vars'])} over devices {self.devices}"

    def label(self):
        return f"fused_all_reduce x{len(self.attrs['vars'])}"

    def runner(self, ctx):
        names, devices, coalesced = self.attrs["vars"], self.devices, ctx.collectives.all_reduce_coalesced

        def run(values, results):
            try:
                totals = coalesced([[values[d][n] for n in names] for d in devices], devices, devices)
            except Exception as e:
                raise self._failed(e) from e
            for d, arrays in zip(devices, totals):
                for name, total in zip(names, arrays):
                    values[d][name] = total

        return run


class AllReduceBuckets:
    """The open bucket of a graph builder (``builder``: its ``g``, ``block``, ``devices``)."""

    def __init__(self, builder, on):
        self.builder, self.on = builder, on
        self.pending, self.bytes = [], 0

    def add(self, param, grad):
        """Takes ``grad`` into the open bucket (closing it first when ``grad`` would overflow it);
        False when bucketing is off (the builder then sums ``grad`` alone)."""
        if not self.on:
            return False
        size = _nbytes(self.builder.block, grad)
        limit, count = LIMITS["memory_bytes"] or BUCKET_BYTES, LIMITS["group_size"]
        if self.pending and (self.bytes + size > limit or 0 < count <= len(self.pending)):
            self.flush()
        self.pending.append((param, grad))
        self.bytes += size
        return True

    def before(self, op):
        """Closes the bucket when ``op`` reads one of its gradients."""
        if self.pending and not {g for _, g in self.pending}.isdisjoint(op.input_arg_names):
            self.flush()

    def flush(self):
        if not self.pending:
            return
        g, devices = self.builder.g, self.builder.devices
        grads = [grad for _, grad in self.pending]
        node = g._add(
            FusedAllReduceNode(
                g._new_id(), None, None, {"vars": grads, "params": [p for p, _ in self.pending], "devices": devices}
            )
        )
        for d in devices:
            for grad in grads:
                g._read(d, grad, node)
        for d in devices:
            for grad in grads:
                g._write(d, grad, node)
        self.pending, self.bytes = [], 0


def _nbytes(block, name):
    var = block.vars.get(name)
    if var is None or var.shape is None:
        return 0
    return math.prod(abs(int(d)) for d in var.shape) * np.dtype(str(var.dtype)).itemsize
