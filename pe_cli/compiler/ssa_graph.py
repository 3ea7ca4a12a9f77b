"""The multi-device SSA graph: a Program copied onto several devices, with the nodes that aggregate
gradients between them. Plain data: the executor schedules it, ``to_dot`` draws it.

Nodes (pe_cli/compiler/ssa_nodes.py, a class per kind)
  - ``OpNode``: one unit of work: ``compute`` (a program op on a device), ``scale_loss_grad`` (the
    loss gradient on a device), ``all_reduce`` / ``reduce`` / ``broadcast``, ``fetch``.
  - ``VarNode``: one *version* of a variable on one device: each write makes a new version, so a
    reader names the value it needs (static single assignment); ``dep`` ones only order two ops.

How it is built (``build_ssa_graph``), for each op of the program's global block, in order:
  - the op filling ``<loss>@GRAD`` becomes a ``scale_loss_grad`` node per device (its value follows
    ``gradient_scale_strategy``); every other op a ``compute`` node per device, reading the latest
    version of each input there and writing new versions of its outputs;
  - after the last backward op writing a gradient ``<param>@GRAD``: with ``AllReduce`` (GPUs) one
    ``all_reduce`` node (the sum over the devices in device order, deterministic, on every device;
    with ``fuse_all_reduce_ops``, one node per bucket: fused_all_reduce.py); with ``Reduce`` one
    ``reduce`` node onto the parameter's owner (balanced by size: largest first, to the least loaded).
  - with ``num_trainers`` > 1 (MPI processes): then one ``process_all_reduce`` node sums it over the
    processes, each after the previous one (every process calls the collectives in the same order);
    with ``fuse_all_reduce_ops``, or one device per process, one per bucket. The loss gradient is scaled by 1/(devices x trainers).
  - with ``Reduce``, an op that reads values only one device holds (the reduced gradient, the
    parameter it updates, ...) runs on that device only; values several owners hold are broadcast
    first. Updated parameters are broadcast from their owner at the end.
The aggregation nodes are made by pe_cli/compiler/ssa_aggregation.py's mixin of the builder.
Then the nodes are ordered beyond their values (write after read, write after write, and one array
read by devices of one memory: pe_cli/compiler/ssa_order.py).
The program is first rewritten by the passes over the program the strategy turns on (fusion).
"""

import collections
import copy

from ..base.errors import PeError, did_you_mean
from ..framework import OpRole
from ..framework.operator import Operator
from ..ops import registry
from ..ops.registry import GRAD_SUFFIX
from .ssa_nodes import (
    ALL_REDUCE as ALL_REDUCE,
    BROADCAST as BROADCAST,
    COMPUTE as COMPUTE,
    FETCH as FETCH,
    REDUCE as REDUCE,
    SCALE_LOSS_GRAD,  # noqa: F401
    PROCESS_ALL_REDUCE as PROCESS_ALL_REDUCE,
    BroadcastNode,
    ComputeNode,
    FetchNode,
    OpNode as OpNode,
    ScaleLossGradNode,
    VarNode,
)
from .fused_all_reduce import AllReduceBuckets
from .ssa_aggregation import Aggregation, base_role
from .passes.program import program_passes
from .ssa_order import order_hazards, sequential
from .strategy import BuildStrategy, GradientScaleStrategy, ReduceStrategy, check_build_strategy


class SSAGraph:
    """The graph of one program on ``num_devices`` devices. ``ops`` are in build order, which is a
    valid sequential order; ``vars[(device, name)]`` lists the versions of a variable."""

    def __init__(self, program, places, loss_name, strategy):
        self.program = program
        self.places = list(places)
        self.num_devices = len(places)
        self.loss_name = loss_name
        self.strategy = strategy.to_dict()
        self.ops = []
        self.vars = {}
        self.deps = []
        self.param_grads = []  # [(parameter name, gradient name)] aggregated between devices
        self.owners = {}  # parameter name -> owning device (Reduce)
        self.fed_loss_grad = None  # '<loss>@GRAD' when the user feeds it (Customized)
        self.final_owned = {}  # var name -> the only device holding its final value (Reduce)
        self.shared_updates = set()  # devices of one memory: names whose one array one device updates
        self._next_id = 0

    def _new_id(self):
        self._next_id += 1
        return self._next_id - 1

    # -- queries --------------------------------------------------------------------------------
    def latest(self, device, name):
        versions = self.vars.get((device, name))
        return versions[-1] if versions else None

    def scope_reads(self, device):
        """Names read on ``device`` before anything writes them there: fed or from a scope."""
        return [name for (d, name), versions in self.vars.items() if d == device and versions[0].producer is None]

    def writes(self, device):
        """Names some node writes on ``device``."""
        return [
            name
            for (d, name), versions in self.vars.items()
            if d == device and any(v.producer is not None for v in versions)
        ]

    def count(self, kind=None):
        return sum(1 for op in self.ops if kind is None or op.kind == kind)

    def stats(self):
        return dict(collections.Counter(op.kind for op in self.ops))

    def __repr__(self):
        return f"<SSAGraph {self.num_devices} devices: {', '.join(f'{k} {n}' for k, n in self.stats().items())}; {len(self.deps)} control deps>"

    # -- fetches ------------------------------------------------------------------------------------
    def copy(self):
        """A copy whose node and variable lists can grow without changing this graph."""
        g = copy.copy(self)
        g.ops = list(self.ops)
        g.vars = dict(self.vars)
        g.deps = list(self.deps)
        return g

    def with_fetches(self, names):
        """A copy with one ``fetch`` node per name, reading its final version on every device
        (values only one device holds are broadcast first). This graph is left unchanged."""
        g = self.copy()
        devices = list(range(self.num_devices))
        for index, name in enumerate(names):
            root = self.final_owned.get(name)
            if root is not None and self.num_devices > 1:
                node = g._add(BroadcastNode(g._new_id(), None, None, {"var": name, "root": root, "devices": devices}))
                node.inputs.append(g.latest(root, name))
                for d in devices:
                    if d != root:
                        g.vars[(d, name)] = list(g.vars.get((d, name), ()))
                        node.outputs.append(g._new_version(d, name, node))
            node = g._add(FetchNode(g._new_id(), None, None, {"var": name, "index": index, "devices": devices}))
            for d in devices:
                var = g.latest(d, name)
                if var is None:  # never written nor read on d: it comes from the feed or a scope
                    var = VarNode(g._new_id(), name, d, 0)
                    g.vars[(d, name)] = [var]
                node.inputs.append(var)
        return g

    # -- building blocks ------------------------------------------------------------------------------
    def _add(self, node):
        self.ops.append(node)
        return node

    def _read(self, device, name, node):
        versions = self.vars.get((device, name))
        if not versions:
            versions = self.vars[(device, name)] = [VarNode(self._new_id(), name, device, 0)]
        var = versions[-1]
        if node not in var.consumers:
            var.consumers.append(node)
            node.inputs.append(var)
        return var

    def _new_version(self, device, name, node):
        versions = self.vars.setdefault((device, name), [])
        var = VarNode(self._new_id(), name, device, len(versions), producer=node)
        versions.append(var)
        return var

    def _write(self, device, name, node):
        var = self._new_version(device, name, node)
        node.outputs.append(var)
        return var

    def _depend(self, before, after):
        """``after`` runs only once ``before`` has finished."""
        dep = VarNode(self._new_id(), f"dep{len(self.deps)}", before.device, 0, producer=before, is_dep=True)
        dep.consumers.append(after)
        before.outputs.append(dep)
        after.inputs.append(dep)
        self.deps.append(dep)


def build_ssa_graph(program, places, build_strategy=None, loss_name=None, shared_memory=False):
    """The SSA graph of ``program`` on ``places`` (one device each) under ``build_strategy``; ``loss_name``
    marks a training program. Devices of one ``shared_memory`` (CPU) build ``Reduce``'s graph under an
    unfused ``AllReduce``: each parameter updated once, not the same update on the same arrays N times."""
    strategy = check_build_strategy(build_strategy) or BuildStrategy()
    if not places:
        raise PeError("no devices to build the graph for: places is empty")
    return _Builder(program, places, strategy, loss_name, shared_memory and not strategy.fuse_all_reduce_ops).build()


class _Builder(Aggregation):
    def __init__(self, program, places, strategy, loss_name, shared=False):
        self.program, report = program_passes(program, strategy)  # fusion, before the devices' copies
        self.block = self.program.global_block()
        self.strategy = strategy
        self.n = len(places)
        self.devices = list(range(self.n))
        self.loss_name = loss_name
        self.g = SSAGraph(self.program, places, loss_name, strategy)
        self.g.program_passes = report  # [(pass name, changes)]: shown by pe graph --passes
        self.owned = {}  # var name -> the only device holding its current value (Reduce)
        self.shared = shared
        self.reduce = shared or strategy.reduce_strategy == ReduceStrategy.Reduce
        self.trainers = strategy.num_trainers
        self.pending = []  # gradients summed in this process, waiting for the processes' all-reduce
        self.last_process_node = None
        self.buckets = AllReduceBuckets(self, strategy.fuse_all_reduce_ops and not self.reduce and self.trainers == 1)

    def build(self):
        self._check_strategy()
        ops = self.block.ops
        loss_grad_index = self._loss_grad_op()
        pairs = self._param_grads() if self.loss_name is not None else []
        self.g.param_grads = [(p, g) for p, g, _ in pairs]
        if self.reduce and self.n > 1:
            self._assign_owners(pairs)
        aggregate_after = {}
        for p, g, index in pairs:
            aggregate_after.setdefault(index, []).append((p, g))

        for index, op in enumerate(ops):
            if index == loss_grad_index:
                self._scale_loss_grad(op)
                continue
            if self.pending and any(name in self.pending for name in op.input_arg_names):
                self._all_reduce_processes()
            self.buckets.before(op)
            for d in self._place(op):
                self._compute(op, d)
            for p, g in aggregate_after.get(index, ()):
                if self.n > 1:
                    self._aggregate(p, g)
                if self.trainers > 1:
                    self.pending.append(g)
                    if not self._process_buckets():
                        self._all_reduce_processes()
        self.buckets.flush()
        self._all_reduce_processes()
        if self.reduce and self.n > 1:
            for p, _ in self.g.param_grads:
                if p in self.owned:
                    self._broadcast(p, self.owned[p])
        self.g.final_owned = dict(self.owned)
        order_hazards(self.g, self.shared)
        if self.strategy.enable_sequential_execution:
            sequential(self.g)
        return self.g

    # -- checks ---------------------------------------------------------------------------------------
    def _check_strategy(self):
        s = self.strategy
        if s.trainer_id >= s.num_trainers:
            raise PeError(f"BuildStrategy: trainer_id={s.trainer_id} must be < num_trainers={s.num_trainers}")
        if s.sync_batch_norm and any(registry.get(op.type).has("batch_statistics") for op in self.block.ops):
            raise PeError(
                "BuildStrategy.sync_batch_norm is not available yet: batch_norm normalizes over "
                "each device's part of the batch; set sync_batch_norm = False"
            )

    def _loss_grad_op(self):
        """Index of the op that fills '<loss>@GRAD' (role Backward|Loss), or None."""
        if self.loss_name is None:
            return None
        if not isinstance(self.loss_name, str):
            raise TypeError(f"loss_name must be a variable name (str), got {self.loss_name!r}")
        if self.loss_name not in self.block.vars:
            hint = did_you_mean(self.loss_name, list(self.block.vars))
            hint = f"; {hint}" if hint else ""
            raise PeError(f"loss_name '{self.loss_name}' is not a variable of the program{hint}")
        wanted = self.loss_name + GRAD_SUFFIX
        found = None
        for index, op in enumerate(self.block.ops):
            if op.role & OpRole.Loss and base_role(op) == OpRole.Backward:
                outs = op.output_arg_names
                if wanted not in outs:
                    raise PeError(
                        f"loss_name '{self.loss_name}' is not the loss this program was "
                        f"differentiated for ({', '.join(o[: -len(GRAD_SUFFIX)] for o in outs)}); "
                        f"pass loss_name=<the variable given to minimize()>.name"
                    )
                found = index
        return found

    # -- nodes ------------------------------------------------------------------------------------------
    def _place(self, op):
        """Devices ``op`` runs on: all of them, or with Reduce the one that alone holds its inputs."""
        if not self.owned:
            return self.devices
        inputs = op.input_arg_names
        owners = {self.owned[n] for n in inputs if n in self.owned}
        if len(owners) == 1:
            device = owners.pop()
            for name in op.output_arg_names:
                self.owned[name] = device
            return [device]
        for name in dict.fromkeys(n for n in inputs if n in self.owned):
            self._broadcast(name, self.owned[name])  # values from several owners: share them first
        for name in op.output_arg_names:
            self.owned.pop(name, None)
        return self.devices

    def _compute(self, op, device, node_class=ComputeNode, attrs=None):
        node = self.g._add(node_class(self.g._new_id(), device, op, attrs))
        for name in dict.fromkeys(op.input_arg_names):
            self.g._read(device, name, node)
        for name in dict.fromkeys(op.output_arg_names):
            self.g._write(device, name, node)
        return node

    def _scale_loss_grad(self, op):
        how = self.strategy.gradient_scale_strategy
        if how == GradientScaleStrategy.Customized:
            self.g.fed_loss_grad = op.output_arg_names[0]
            return
        shares = self.n * self.trainers  # every device of every trainer holds a share of the batch
        scale = 1.0 / shares if how == GradientScaleStrategy.CoeffNumDevice else 1.0
        value = op.attrs.get("value", 1.0)
        attrs = dict(op.attrs, value=value / shares if how == GradientScaleStrategy.CoeffNumDevice else value)
        scaled = Operator(
            op.block,
            op.type,
            {k: list(v) for k, v in op.inputs.items()},
            {k: list(v) for k, v in op.outputs.items()},
            attrs,
            op.role,
            op.source,
            op.layer,
        )
        for d in self.devices:
            self._compute(scaled, d, ScaleLossGradNode, {"scale": scale})
