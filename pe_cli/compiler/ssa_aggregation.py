"""How the multi-device SSA graph aggregates gradients (pe_cli/compiler/ssa_graph.py builds the graph with
this mixin): which gradients are final after which op, each parameter's owner under ``Reduce`` (balanced
by size), the ``all_reduce`` / ``reduce`` node of each gradient between the devices, the
``process_all_reduce`` node summing the pending gradients over the trainer processes, and the
``broadcast`` of a value from its owner."""

from ..framework import OpRole
from ..ops.registry import GRAD_SUFFIX
from .ssa_nodes import AllReduceNode, BroadcastNode, ProcessAllReduceNode, ReduceNode


def base_role(op):
    return op.role & ~OpRole.Loss


def _balance_size(shape):
    """A parameter's weight when balancing owners: its element count, unknown dims counted as 1."""
    n = 1
    for d in shape or ():
        n *= max(int(d), 1)
    return n


class Aggregation:
    """The gradient aggregation of ssa_graph.py's _Builder, on its graph ``g``, devices, strategy,
    ``owned`` values, ``pending`` gradients and ``buckets``."""

    def _param_grads(self):
        """[(parameter, gradient, index of the last backward op writing the gradient)]."""
        last_writer = {}
        for index, op in enumerate(self.block.ops):
            if base_role(op) == OpRole.Backward:
                for name in op.output_arg_names:
                    last_writer[name] = index
        pairs = []
        for p in self.block.all_parameters():
            grad = p.name + GRAD_SUFFIX
            if getattr(p, "trainable", True) and grad in last_writer:
                pairs.append((p.name, grad, last_writer[grad]))
        pairs.sort(key=lambda t: t[2])  # the order gradients become final; stable for ties
        return pairs

    def _assign_owners(self, pairs):
        """Largest parameter first, each to the device with the least parameter size so far."""
        load = [0] * self.n
        sizes = {p: _balance_size(self.block.vars[p].shape) for p, _, _ in pairs}
        for p in sorted(sizes, key=lambda p: -sizes[p]):  # stable: ties keep gradient order
            device = min(self.devices, key=lambda d: (load[d], d))
            self.g.owners[p] = device
            load[device] += sizes[p]

    def _aggregate(self, param, grad):
        if self.reduce:
            root = self.g.owners[param]
            node = self.g._add(
                ReduceNode(
                    self.g._new_id(), None, None, {"var": grad, "param": param, "root": root, "devices": self.devices}
                )
            )
            for d in self.devices:
                self.g._read(d, grad, node)
            self.g._write(root, grad, node)
            self.owned[grad] = root
        elif not self.buckets.add(param, grad):
            node = self.g._add(
                AllReduceNode(self.g._new_id(), None, None, {"var": grad, "param": param, "devices": self.devices})
            )
            for d in self.devices:
                self.g._read(d, grad, node)
            for d in self.devices:
                self.g._write(d, grad, node)

    def _process_buckets(self):
        """True when the processes' all-reduce waits for a bucket of gradients (one MPI collective
        before the first op reading one of them) rather than running per gradient: with
        ``fuse_all_reduce_ops``, and always where a process has one device, whose nodes run one after
        another, so that a per-gradient collective overlaps no computation and only adds a message
        and a rendezvous of the processes (the sums are the same bits either way)."""
        return self.strategy.fuse_all_reduce_ops or self.n == 1

    def _all_reduce_processes(self):
        """One node summing the pending gradients (one bucket) over the processes, after their devices."""
        if not self.pending:
            return
        holders = {g: [self.owned[g]] if g in self.owned else list(self.devices) for g in self.pending}
        node = self.g._add(
            ProcessAllReduceNode(
                self.g._new_id(),
                None,
                None,
                {
                    "vars": list(self.pending),
                    "holders": holders,
                    "trainers": self.trainers,
                    "devices": sorted({d for ds in holders.values() for d in ds}),
                },
            )
        )
        for g, ds in holders.items():
            for d in ds:
                self.g._read(d, g, node)
            for d in ds:
                self.g._write(d, g, node)
        if self.last_process_node is not None:  # every rank must call the collectives in one order
            self.g._depend(self.last_process_node, node)
        self.last_process_node = node
        self.pending = []

    def _broadcast(self, name, root):
        node = self.g._add(
            BroadcastNode(self.g._new_id(), None, None, {"var": name, "root": root, "devices": self.devices})
        )
        self.g._read(root, name, node)
        for d in self.devices:
            if d != root:
                self.g._write(d, name, node)
        self.owned.pop(name, None)
