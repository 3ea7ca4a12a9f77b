"""Running the block an op owns (attribute ``sub_block``) or names (run_program's ``global_block``:
a block of its program, or of another one, as Fluid's dygraph gives it): the kernels of such ops get
a ``BlockRunner`` as their context's ``block`` (pe_cli/kernels/context.py) and call it; the executors never know which ops do.

Values of a sub-block live in a child scope (``ChildValues``) over the values of the run: a name
the sub-block declares is local to the child, any other name is read from, and written to, the
parent, as Fluid's scopes resolve variables of an enclosing block. Each run of the block (each loop
iteration, each RNN step) gets a fresh child; the recurrent op keeps its children as step scopes
for its gradient."""

from ..base import profiler
from ..base.errors import PeError
from ..ops import registry


# the attributes naming the block an op's kernel runs
BLOCK_ATTRS = ("sub_block", "global_block")


def runs_block(op):
    """Whether the op's kernel runs a block (it has one of BLOCK_ATTRS)."""
    return any(a in op.attrs for a in BLOCK_ATTRS)


class ChildValues(dict):
    """A child scope: names in ``local`` live here, every other name is read and written through
    ``parent`` (None: a root, everything local). ``lods`` is shared with the parent."""

    __slots__ = ("parent", "local", "lods")

    def __init__(self, parent=None, local=frozenset()):
        super().__init__()
        self.parent = parent
        self.local = local
        self.lods = getattr(parent, "lods", None) if parent is not None else {}
        if self.lods is None:
            self.lods = {}

    def __missing__(self, name):
        if self.parent is None:
            raise KeyError(name)
        return self.parent[name]

    def __setitem__(self, name, value):
        if self.parent is None or name in self.local:
            dict.__setitem__(self, name, value)
        else:
            self.parent[name] = value

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __contains__(self, name):
        return dict.__contains__(self, name) or (self.parent is not None and name in self.parent)


class BlockRunner:
    """The ops of one sub-block resolved for one device, and the owning op's slot names."""

    def __init__(self, op, device, make_step, run_step, seed_offset=0):
        program = op.block.program
        attr = next(a for a in BLOCK_ATTRS if a in op.attrs)
        index = op.attrs[attr]
        if hasattr(index, "ops") and attr == "global_block":
            self.block = index  # a block of another program (Fluid's dygraph gives run_program one)
        elif not isinstance(index, int) or not 0 < index < len(program.blocks):
            raise PeError(f"{op.describe()}: {attr}={index!r} is not a block of its program")
        else:
            self.block = program.blocks[index]
        self.op = op
        self.local = frozenset(self.block.vars)
        self.steps = [make_step(o, device, seed_offset) for o in self.block.ops]
        self._run_step = run_step
        self._dup = {s.name for s in registry.get(op.type).inputs if s.duplicable}
        self._read = None  # the names the program's ops read (output_read)

    def env(self, ins, lods=None):
        """A root scope holding the owning op's inputs by name, with their LoD (``lods``: slot -> LoD,
        a kernel context's ``lod``)."""
        env = ChildValues()
        lods = lods or {}
        for slot, names in self.op.inputs.items():
            if slot not in ins or ins[slot] is None:
                continue
            dup = slot in self._dup
            values = ins[slot] if dup else [ins[slot]]
            slot_lods = lods.get(slot) if dup else [lods.get(slot)]
            for i, (name, value) in enumerate(zip(names, values)):
                env[name] = value
                if slot_lods and i < len(slot_lods) and slot_lods[i]:
                    env.lods[name] = slot_lods[i]
        return env

    def child(self, parent):
        return ChildValues(parent, self.local)

    def run(self, scope, before=None, after=None, start=0, stop=None):
        """Runs the block's ops once in ``scope`` (usually ``child(...)``); ``before(i)`` and
        ``after(i)`` are called around op i when given (a loop's gradient restores, and its forward
        records, the values of variables the block overwrites). ``start``, ``stop``: only the ops
        [start, stop) (run_program's range)."""
        profile = profiler.active()
        for i, step in enumerate(self.steps[start:stop], start):
            if before is not None:
                before(i)
            self._run_step(step, scope, profile)
            if after is not None:
                after(i)
        return scope

    def output_read(self, slot):
        """Whether an op of the program reads the owning op's output ``slot``: a loop keeps its
        iterations (StepScopes) only for a gradient op that reads them. Decoding 41 steps of a beam
        search over 10,000 words kept every iteration's values: 6.2 GB where 1.5 GB do."""
        if self._read is None:
            program = self.op.block.program
            self._read = {
                n for block in program.blocks for o in block.ops for names in o.inputs.values() for n in names
            }
        return any(n in self._read for n in self.op.outputs.get(slot, []))

    def names(self, slot):
        return self.op.outputs.get(slot) or self.op.inputs.get(slot) or []

    def outputs(self, env, slot):
        """The values of the owning op's output slot ``slot``, read from ``env``."""
        return [env[n] for n in self.op.outputs.get(slot, [])]
