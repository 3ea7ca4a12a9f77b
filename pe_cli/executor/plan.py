"""Resolving ops to kernels once, and running one resolved op. Both executors use this: it is the
only place where a kernel is called, so the sequential and the parallel executor compute the same.
An op with a structured kernel on the step's device (pe_cli/shapes/structured.py) runs as a plan of one:
its step's kernel (kernels/structured.step_kernel) keeps the meta rule's decision per shape signature of
its inputs, allocates the outputs that decision says and calls the out-kernel into them."""

from time import perf_counter

import numpy as np

from .. import kernels
from ..kernels.context import KernelContext, takes_context
from . import nan_check
from .donation import may_overwrite, may_update, note_aliases
from ..base.errors import EnforceNotMet, OpEnforceError, OpError, PeError
from ..ops import registry
from ..base.selected_rows import SelectedRows
from ..framework import default_generator
from .sub_block import BlockRunner, runs_block


class OpStep:
    """An op resolved for one device: its kernel, where its inputs come from and outputs go."""

    __slots__ = (
        "op",
        "kernel",
        "inputs",
        "outputs",
        "attrs",
        "device",
        "rng_seed",
        "fresh_rng",
        "lod",
        "needs_lod",
        "inplace",
        "densify",
        "updates",
        "prior",
        "unset",
        "context",
        "told",
        "fixed_context",
        "watch",
    )

    def __init__(self, op, device, seed_offset=0, inplace=False, blocked=frozenset()):
        opdef = registry.get(op.type)
        self.op = op
        self.device = device
        # the device's runtime binds the kernel to it (a GPU's kernels allocate and launch there); a structured
        # op's is the step's own: its meta per shape signature, its outputs allocated, its out-kernel called
        runtime = kernels.runtime(device)
        tensor_attrs = any(op.inputs.get(slot) for slot in opdef.attr_tensors)  # (attributes a run's values give)
        self.kernel = runtime.bind_kernel(opdef.step_kernel(device.kind, bool(blocked), tensor_attrs), device)
        structured = opdef.steps_structured(device.kind, bool(blocked), tensor_attrs)
        # a row-sparse input (SelectedRows) reaches only the kernels that take one; others get it dense
        self.densify = (
            None if opdef.has("selected_rows") else runtime.bind_kernel(runtime.selected_rows.densify, device)
        )
        dup_in = {s.name for s in opdef.inputs if s.duplicable}
        dup_out = {s.name for s in opdef.outputs if s.duplicable}
        self.inputs = tuple((slot, tuple(names), slot in dup_in) for slot, names in op.inputs.items() if names)
        self.outputs = tuple((slot, tuple(names), slot in dup_out) for slot, names in op.outputs.items() if names)
        # an in-place update (write_to_array): the value its output had before, when it had one
        self.prior = tuple((slot, op.outputs[slot][0]) for slot in opdef.reads_outputs if op.outputs.get(slot))
        self.unset = opdef.has("unset_inputs")  # its list inputs may lack values: None for those
        self.attrs = op.attrs  # the op's attributes, and only those
        # enable_inplace: the input the kernel may write its output over, when nothing else holds it
        self.inplace = op.inputs[opdef.inplace[1]][0] if inplace else None
        self.rng_seed = self.fresh_rng = None  # fresh_rng(): each call's own Generator or engine
        self.lod, self.needs_lod = opdef.lod, opdef.needs_lod
        rng = None
        if opdef.needs_rng and not seed_offset and paddle_engine(op, opdef):
            # (each call's: paddle.seed may have replaced it); the first device's alone, so that the
            # others' numpy streams keep a data-parallel run's draws the same from run to run
            self.fresh_rng = _default_engine
            rng = self.fresh_rng()
        elif opdef.needs_rng:
            self.rng_seed = rng_seed(op, seed_offset)  # None: a stream of its own, from paddle.seed's generator
            rng = np.random.default_rng(default_generator.draw() if self.rng_seed is None else self.rng_seed)
            if self.rng_seed is not None:
                self.fresh_rng = _numpy_stream(self.rng_seed)
        self.context = self._context(opdef, rng, seed_offset, blocked)
        self.told = takes_context(self.kernel)
        # a structured step reads its context's fixed facts and the call's leaves alone (its meta rule the facts,
        # its out-kernel none; it sets no LoD): a call of no LoD, Generator or leave of its own is told this one
        self.fixed_context = (
            self.context
            if structured and not self.needs_lod and self.fresh_rng is None and self.context.block is None
            else None
        )
        # an update (ParamOut = Param): the variables it reads and writes back, which it may update in place
        self.updates = (
            tuple(n for n in dict.fromkeys(op.input_arg_names) if n in op.output_arg_names)
            if opdef.has("updates_in_place")
            else ()
        )
        self.watch = False  # it holds a name another step may write in place (donation.watch_names)

    def _context(self, opdef, rng, seed_offset, blocked):
        """What the executor tells the kernel beyond the attributes (kernels/context.py), where it takes it."""
        op, device = self.op, self.device
        return KernelContext(
            rng=rng,
            outputs=frozenset(slot for slot, _, _ in self.outputs) if opdef.has("optional_outputs") else None,
            output_counts={slot: len(names) for slot, names, _ in self.outputs} if opdef.has("output_counts") else None,
            # a control-flow op, run_program: its kernel runs the block it owns or names
            block=BlockRunner(op, device, OpStep, run_step, seed_offset) if runs_block(op) else None,
            blocked=blocked,  # the onednn_blocked_layout pass: the slots holding blocked values (kernels/cpu/blocked.py)
            input_names={slot: names for slot, names, _ in self.inputs},
            op_state=op.run_state,
            zero_dim=op.zero_dim,
            paddle2=op.paddle2,
            row_sparse=op.row_sparse_outputs() if opdef.has("row_sparse_outputs") else None,
        )

    @property
    def on_host(self):
        """Whether its kernel draws random numbers or runs a block (what runs on the host whatever its inputs)."""
        return self.context.rng is not None or self.context.block is not None


def prior_reads(block):
    """The outputs that ops read as they were before (``OpDef.reads_outputs``), or may leave as they
    were (trait keeps_unwritten_outputs), and no earlier op writes: a run takes their values from the
    scope where it holds one (an adam op's ParamOut that is not its Param, as Paddle's op tests give
    it; a conditional_block's Out when its Cond fails)."""
    written, names = set(), []
    for op in block.ops:
        opdef = registry.get(op.type)
        for slot in opdef.reads_outputs:
            names += [n for n in op.outputs.get(slot, ())[:1] if n not in written]
        if opdef.has("keeps_unwritten_outputs"):
            names += [n for n in op.output("Out") if n not in written]
        written.update(op.output_arg_names)
    return tuple(dict.fromkeys(names))


def scope_traffic(block):
    """(reads, writes) of a run of ``block``: the names its ops read before any op writes them, in
    the order they are first read, and the persistable names its ops write, in the order a run
    writes them back to the scope: **the last read first**.

    Hogwild's threads (data/hogwild.py) read and write back the same scope without a lock: in that
    order, a run that takes references while another is writing back, and sees one of its new
    values, sees new every value read after it (Adam reads Moment1 first: never a new Moment1 with
    an old Moment2, which can be 0 under a Moment1 that is not, and make the step lr * m1 / epsilon).
    The outputs of an op with ``fed_outputs`` (a py_reader's ``read``) count as read: feeds bring them."""
    written, reads = set(), []
    for op in block.ops:
        fed = op.output_arg_names if registry.get(op.type).has("fed_outputs") else ()
        for n in [*op.input_arg_names, *fed]:
            if n not in written and n not in reads:
                reads.append(n)
        written.update(op.output_arg_names)
    rank = {n: i for i, n in enumerate(reads)}
    writes = sorted(
        (n for n in written if n in block.vars and block.vars[n].persistable),
        key=lambda n: (-rank.get(n, len(reads)), n),
    )
    return reads, writes


def paddle_engine(op, opdef):
    """Whether ``op`` draws Paddle 2.6's CPU stream: an op whose kernels know Paddle's distributions
    (trait ``paddle_engine``; a CUDA device's draw on the host, as the CPU's) in a program that follows
    Paddle 2.6. Its kernel gets the default generator's engine (``paddle.seed``), which each run
    advances, and, as Paddle's kernels, draws from an engine of its own instead where its attributes
    give a seed (kernels/cpu/_paddle_random.engine). The program's ``random_seed`` counts only where
    the Python that built the op copied it into ``seed``, as Paddle's initializers and dropout do."""
    return opdef.has("paddle_engine") and getattr(op.block.program, "_follows_paddle2", False)


def _numpy_stream(seed):
    return lambda: np.random.default_rng(seed)


def _default_engine():
    return default_generator.default_cpu_generator().engine


def rng_seed(op, seed_offset):
    """A seeded random op draws the same values on every run, as in Fluid (so running a startup
    program twice initializes identically): its seed is the op's ``seed`` attribute and the
    program's ``random_seed``, mixed with the op's position and device so that two parameters of
    one shape differ (an initializer's op: the position it would have had appended, where pe put it
    before it put it first as Fluid does, so seeded runs keep their values). Both 0: None, one stream
    for the life of the executor, started from the default generator (framework/default_generator.py:
    fresh entropy until ``paddle.seed``)."""
    seed = op.attrs.get("seed", 0) or 0
    program_seed = op.block.program.random_seed or 0
    if seed == program_seed:  # an initializer records its program's seed as its own: the same draw
        seed = 0
    if not seed and not program_seed:
        return None
    index = op.seed_position
    if index is None:
        index = op.block.ops.index(op) if op in op.block.ops else 0
    return [int(s) % (1 << 64) for s in (seed, program_seed, index, seed_offset)]  # Fluid takes any int, < 0 too


class Values(dict):
    """One run's values on one device (name -> array), with the LoD of those that have one
    (``lods``: name -> offsets per level). The LoD travels with the value through every op. What
    the run may write in place (pe_cli/executor/donation.py): ``donated``, the names whose arrays an
    update may write (the executor's, from the plan and the scope); ``dense_updates``, a dense
    parameter too, not only a few rows of one (no NaN check on: a failed check leaves the scope as
    the run found it); ``shared``, names a step found sharing memory with another name this run;
    ``kept``, names whose arrays a planned step keeps as its buffers."""

    __slots__ = ("lods", "donated", "dense_updates", "shared", "kept")

    def __init__(self, arrays=(), lods=None):
        if arrays:  # (dict.__init__ and dict(lods or {}) cost a tenth of a tiny run's gathering)
            self.update(arrays)
        self.lods = dict(lods) if lods else {}
        self.donated = _NOTHING
        self.dense_updates = False
        self.shared = set()
        self.kept = _NOTHING


_NOTHING = frozenset()


def _input_lods(step, lods):
    """slot -> LoD of the slot's first variable (a list of them for a duplicable slot), or None."""
    return {slot: [lods.get(n) for n in names] if dup else lods.get(names[0]) for slot, names, dup in step.inputs}


def _pass_lod(step, values, lods, in_lods, outs, ctx=None):
    """Sets (or clears) the LoD of each output the op wrote, by the op's registered rule."""
    rule = step.lod
    if rule == "keep":
        computed = {}
        first = next((n for _, names, _ in step.inputs for n in names[:1] if lods.get(n)), None)
        if first is not None:
            rows = np.shape(values[first])[:1]
            computed = {
                slot: lods[first]
                for slot, _, dup in step.outputs
                if not dup and slot in outs and np.shape(outs[slot])[:1] == rows
            }
    elif rule == "drop":
        computed = {}
    else:
        computed = rule(in_lods, step.attrs) or {}
    made = None if ctx is None else ctx.out_lod
    if made:  # a LoD only the kernel knows (computed from values, as sequence_unpad's): ctx.set_lod
        computed = dict(computed, **made)
    per_var = (None if ctx is None else ctx.out_lods) or {}  # a duplicable output's LoD per variable
    for slot, names, dup in step.outputs:
        if outs.get(slot) is None:  # not written (read's: its feeds keep their LoD)
            continue
        for n in names:
            lods.pop(n, None)
        lod = computed.get(slot)
        if lod:  # (a duplicable slot's: each of its variables', as Fluid's ShareLoD(X, Out, 0, i))
            for n in names if dup else names[:1]:
                lods[n] = lod
        for n, lod in zip(names, per_var.get(slot, ()) if dup else ()):
            if lod:
                lods[n] = lod


def _profiled(step, ins, attrs, ctx, profile):
    profile.enter(step.op.type)
    start = perf_counter()
    try:
        return step.kernel(ins, attrs) if ctx is None else step.kernel(ins, attrs, ctx)
    finally:
        profile.leave(perf_counter() - start)


def _gather(step, values):
    """The kernel's inputs (slot -> array, a list for a duplicable slot) read from ``values``, and
    whether one of them is row-sparse (a SelectedRows: a dense kernel gets it densified)."""
    sparse = False
    try:
        ins = {}
        for slot, names, dup in step.inputs:
            if dup:
                ins[slot] = [values.get(n) if step.unset else values[n] for n in names]
            else:
                value = ins[slot] = values[names[0]]
                if type(value) is SelectedRows:
                    sparse = True
                    if step.densify is not None:  # row-sparse, for a dense kernel
                        ins[slot] = step.densify({"X": value}, {})["Out"]
        for slot, name in step.prior:
            if name in values:
                ins[slot] = values[name]
    except KeyError as e:
        raise OpError(
            f"{step.op.describe()}: input variable '{e.args[0]}' has no value; "
            f"is it fed, or initialized by the startup program?",
            step.op,
            step.device,
        ) from None
    return ins, sparse


def _call(step, ins, attrs, ctx, profile):
    """The kernel's outputs, its errors said as the op's."""
    try:
        if profile is not None:
            return _profiled(step, ins, attrs, ctx, profile)
        return step.kernel(ins, attrs) if ctx is None else step.kernel(ins, attrs, ctx)
    except PeError as e:
        kind = OpEnforceError if isinstance(e, EnforceNotMet) else OpError
        raise kind(f"{step.op.describe()} on {step.device}: {e}", step.op, step.device) from e
    except Exception as e:
        raise OpError(
            f"{step.op.describe()} on {step.device} failed: {type(e).__name__}: {e}", step.op, step.device
        ) from e


def _store(step, values, outs):
    """Writes the outputs the kernel gave into ``values``."""
    for slot, names, dup in step.outputs:
        value = outs.get(slot)
        if value is None:
            continue
        if dup:
            for n, v in zip(names, value):
                values[n] = v
        else:
            values[names[0]] = value


def draw_context(step):
    """The context a call of ``step`` draws its random numbers with, as run_step gives it: its own, whose
    Generator lasts the executor's life, or, where each call draws from a Generator seeded anew
    (``fresh_rng``), one of those."""
    return step.context if step.fresh_rng is None else step.context.for_call(None, step.fresh_rng())


def run_step(step, values, profile=None):
    """Runs one op: reads its inputs from ``values`` (name -> array), writes its outputs there;
    the outputs' LoD follows the op's registered rule when ``values`` carries LoDs (``Values``).
    With a ``profile`` (pe_cli/base/profiler.py), the kernel's time is recorded in it. A step marked
    in-place (the enable_inplace pass) lets its kernel write over that input, and an update over its
    parameter and state, only where the run's explicit state allows it (pe_cli/executor/donation.py:
    donated to the run, no view, shared with no other name)."""
    inplace = step.inplace is not None and may_overwrite(values, step.inplace)
    ins, sparse = _gather(step, values)
    lods = getattr(values, "lods", None)
    # an update (a few rows of a table, or a dense parameter where the executor allows it) writes in
    # place the names donated to the run
    update = bool(
        step.updates and (sparse or getattr(values, "dense_updates", False)) and may_update(values, step.updates)
    )
    in_lods = _input_lods(step, lods or {}) if lods or step.needs_lod else None
    ctx = None
    if step.told and step.fixed_context is not None and not inplace and not update:
        ctx = step.fixed_context
    elif step.told:  # the call's own context: its inputs' LoD, a Generator seeded anew, its permissions
        rng = None if step.fresh_rng is None else step.fresh_rng()
        ctx = step.context.for_call(in_lods if step.needs_lod else None, rng, inplace, update)
    outs = _call(step, ins, step.attrs, ctx, profile)
    _store(step, values, outs)
    if step.watch:  # (an output sharing the memory of a name another step may write in place)
        note_aliases(step, ins, outs, values)
    made = ctx is not None and (ctx.out_lod is not None or ctx.out_lods is not None)
    if lods is not None and (in_lods is not None or made):
        _pass_lod(step, values, lods, in_lods or {}, outs, ctx)  # (a LoD the kernel made, from no LoD input)
    if nan_check.ENABLED:
        nan_check.check_outputs(step, values)


def pass_launched_lod(step, values):
    """After a planned step's segment launched ``step`` (an op that reads no LoD: its outputs are in
    ``values``): its outputs' LoD from its inputs', by the op's rule, as ``run_step`` passes it."""
    lods = values.lods
    outs = {slot: [values.get(n) for n in names] if dup else values.get(names[0]) for slot, names, dup in step.outputs}
    _pass_lod(step, values, lods, _input_lods(step, lods), outs)


def run_steps(steps, frees, values, profile=None):
    """Runs ``steps`` in order; after step i drops the names ``frees[i]`` (memory_optimize) when given."""
    if frees is None:
        for step in steps:
            run_step(step, values, profile)
        return
    for step, names in zip(steps, frees):
        run_step(step, values, profile)
        for name in names:
            values.pop(name, None)
