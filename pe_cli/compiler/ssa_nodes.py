"""The nodes of the multi-device SSA graph (pe_cli/compiler/ssa_graph.py), one class per kind.

A node knows what it is (``describe`` for errors, ``label`` and ``dot_style`` for drawings) and how
it runs: ``runner(ctx)`` returns the function ``run(values, results)`` the scheduler calls, where
``values[d]`` maps names to device d's arrays and ``results`` collects fetches. ``ctx`` is what the
executor lends a node: ``ctx.step(op, device, inplace, blocked)`` (an op resolved to its kernel on a device),
``ctx.run_step(step, values)`` and ``ctx.collectives`` (the devices' all-reduce and broadcast,
pe_cli/kernels/<kind>/collectives.py). The scheduler knows nothing else of a node, so a new kind
(send/recv, a sub-block, a cross-process all-reduce) is one more class here.
"""

from ..base.errors import OpError

COMPUTE = "compute"
SCALE_LOSS_GRAD = "scale_loss_grad"
ALL_REDUCE = "all_reduce"
REDUCE = "reduce"
BROADCAST = "broadcast"
PROCESS_ALL_REDUCE = "process_all_reduce"
FETCH = "fetch"
RELEASE = "release"

_COLLECTIVE_STYLE = 'shape=box, style="rounded,filled,bold", fillcolor="#f6d6d6"'


class VarNode:
    """One version of a variable on one device (``is_dep``: a control dependency, no value)."""

    __slots__ = ("id", "name", "device", "version", "producer", "consumers", "is_dep")

    def __init__(self, id, name, device, version, producer=None, is_dep=False):
        self.id = id
        self.name = name
        self.device = device
        self.version = version
        self.producer = producer
        self.consumers = []
        self.is_dep = is_dep

    def __repr__(self):
        if self.is_dep:
            return f"<dep {self.producer.id}->{[c.id for c in self.consumers]}>"
        return f"<{self.name} v{self.version} dev{self.device}>"


class OpNode:
    """One unit of work. ``device`` is the device it runs on, or None for nodes spanning devices
    (``attrs['devices']``). ``op`` is the program Operator of compute and scale_loss_grad nodes.
    ``is_op``: the node runs a program op (counted as one by the profiler). ``eager``: the node only
    frees memory, so the scheduler runs it before any other ready node."""

    __slots__ = ("id", "device", "op", "inputs", "outputs", "attrs")
    kind = None
    is_op = False
    eager = False
    dot_style = _COLLECTIVE_STYLE

    def __init__(self, id, device=None, op=None, attrs=None):
        self.id = id
        self.device = device
        self.op = op
        self.inputs = []
        self.outputs = []
        self.attrs = attrs or {}

    @property
    def devices(self):
        return [self.device] if self.device is not None else list(self.attrs.get("devices", ()))

    @property
    def var(self):
        return self.attrs.get("var")

    def describe(self):
        """For error messages: what the node does and where."""
        raise NotImplementedError

    def label(self):
        return self.kind

    def dot_label(self):
        """The label of its box in a drawing: the label and the variable it moves."""
        return f"{self.label()}\n{self.var or ''}"

    def runner(self, ctx):
        raise NotImplementedError

    def _failed(self, error):
        return OpError(f"{self.describe()} failed: {type(error).__name__}: {error}", None, "all devices")

    def __repr__(self):
        where = f" dev{self.device}" if self.device is not None else ""
        what = self.op.type if self.op is not None else self.attrs.get("var", "")
        return f"<{self.kind} {what}{where}>"


class ComputeNode(OpNode):
    """One program op on one device."""

    __slots__ = ()
    kind = COMPUTE
    is_op = True
    dot_style = 'shape=box, style="rounded,filled", fillcolor="#dbe9f6"'

    def describe(self):
        return f"{self.op.describe()} on device {self.device}"

    def label(self):
        return self.op.type

    def dot_label(self):
        return f"{self.label()}\n{self.op.layer}" if self.op.layer else self.label()

    def runner(self, ctx):
        step = ctx.step(self.op, self.device, self.attrs.get("inplace", False), self.attrs.get("blocked", frozenset()))
        d, run_step = self.device, ctx.run_step

        def run(values, results):
            run_step(step, values[d])

        return run


class ScaleLossGradNode(ComputeNode):
    """The initial gradient of the loss on one device, scaled by ``attrs['scale']``."""

    __slots__ = ()
    kind = SCALE_LOSS_GRAD
    dot_style = 'shape=box, style="rounded,filled", fillcolor="#fde2c4"'

    def describe(self):
        return f"scale_loss_grad of '{self.op.output_arg_names[0]}' on device {self.device}"

    def label(self):
        return f"scale_loss_grad x{self.attrs['scale']:g}"

    def dot_label(self):
        return self.label()


class AllReduceNode(OpNode):
    """Sums a gradient over the devices (in device order) and gives the sum to every device."""

    __slots__ = ()
    kind = ALL_REDUCE

    def describe(self):
        return f"all_reduce of '{self.var}' over devices {self.devices}"

    def targets(self):
        return self.devices

    def runner(self, ctx):
        name, devices, targets, all_reduce = self.var, self.devices, self.targets(), ctx.collectives.all_reduce

        def run(values, results):
            try:
                totals = all_reduce([values[d][name] for d in devices], devices, targets)
            except Exception as e:
                raise self._failed(e) from e
            for d, total in zip(targets, totals):
                values[d][name] = total

        return run


class ReduceNode(AllReduceNode):
    """Sums a gradient over the devices onto the device that owns its parameter."""

    __slots__ = ()
    kind = REDUCE

    def describe(self):
        return f"reduce of '{self.var}' onto device {self.attrs['root']}"

    def label(self):
        return f"reduce -> dev{self.attrs['root']}"

    def targets(self):
        return [self.attrs["root"]]


class BroadcastNode(OpNode):
    """Copies a value from the device that holds it to every other device."""

    __slots__ = ()
    kind = BROADCAST

    def describe(self):
        return f"broadcast of '{self.var}' from device {self.attrs['root']}"

    def label(self):
        return f"broadcast dev{self.attrs['root']} ->"

    def runner(self, ctx):
        name, root, broadcast = self.var, self.attrs["root"], ctx.collectives.broadcast
        others = [d for d in self.devices if d != root]

        def run(values, results):
            try:
                array = values[root][name]
            except KeyError:
                raise OpError(f"{self.describe()}: '{name}' has no value on device {root}", None, root) from None
            for d, copy in zip(others, broadcast(array, root, others)):
                values[d][name] = copy

        return run


class ProcessAllReduceNode(OpNode):
    """Sums gradients over the trainer processes (after each process summed its devices): one
    contiguous buffer for ``attrs['vars']`` (a bucket), read on the first device of
    ``attrs['holders'][var]`` and given to every holder (pe_cli/distributed/processes.py)."""

    __slots__ = ()
    kind = PROCESS_ALL_REDUCE
    dot_style = 'shape=box, style="rounded,filled,bold", fillcolor="#e6d6f6"'

    @property
    def var(self):
        names = self.attrs["vars"]
        return names[0] if len(names) == 1 else f"{len(names)} gradients"

    def describe(self):
        return f"all_reduce over {self.attrs['trainers']} trainer processes of {', '.join(self.attrs['vars'])}"

    def label(self):
        return f"all_reduce x{self.attrs['trainers']} processes"

    def runner(self, ctx):
        names, holders, processes = self.attrs["vars"], self.attrs["holders"], ctx.processes

        def run(values, results):
            try:
                totals = processes.all_reduce(
                    [values[holders[n][0]][n] for n in names], label=self.describe(), names=names
                )
            except Exception as e:
                raise self._failed(e) from e
            for name, total in zip(names, totals):
                for d in holders[name]:
                    values[d][name] = ctx.to_device(d, total)

        return run


class FetchNode(OpNode):
    """Collects a variable's final value from every device into ``results[attrs['index']]``."""

    __slots__ = ()
    kind = FETCH
    dot_style = 'shape=box, style="rounded,filled", fillcolor="#e2e2e2"'

    def describe(self):
        return f"fetch of '{self.var}'"

    def runner(self, ctx):
        name, index, devices = self.var, self.attrs["index"], self.devices

        def run(values, results):
            results[index] = [values[d].get(name) for d in devices]

        return run


class ReleaseNode(OpNode):
    """Drops a temporary's value on one device once its last reader has run (the memory_optimize
    pass, pe_cli/compiler/passes/memory_optimize.py), so the allocator can give its buffer to the
    next value."""

    __slots__ = ()
    kind = RELEASE
    eager = True
    dot_style = 'shape=box, style="rounded,dashed"'

    def describe(self):
        return f"release of '{self.var}' on device {self.device}"

    def runner(self, ctx):
        name, d = self.var, self.device

        def run(values, results):
            values[d].pop(name, None)

        return run
