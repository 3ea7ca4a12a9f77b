"""Planned CPU steps (issue 89): a device's ops planned once for the shapes and dtypes of a step's
values, then run as compiled segments that release the GIL.

Planning (``DevicePlan``), for one device's ops in run order and the values of a step that ran op by
op: every structured op's Meta (pe_cli/shapes/structured.py: its meta rule, the one its op-by-op step
runs, on the shapes and dtypes the step's values had), its outputs' shapes and dtypes from that Meta
(checked against the step's values), an output buffer for each value a launch writes (allocated once,
written again every step), and the op's launches from its CPU out-kernel (``out_kernel.launches(op,
table, meta)``: the loops of the variant the Meta chose, kernels/cpu/launches.py), never a second
decision. Any other op (no structured kernel, or no launches for its variant; one whose out-kernel
touches Python, ``Structured.python``; a value with a LoD, a random op, a block, NaN checks) stays a
Python launch: ``plan.run_step``, between segments.

A ``Segment`` is consecutive launches of one device compiled into one numba function (generated
source calling each launch's loop with its bound arguments, ``nogil=True``): one call runs them all
without the GIL, so the segments of N devices run at once on N threads. Its arguments are the
plan's buffers (fixed) and the values it reads from outside (fed, read from the scope, written by a
Python launch or a collective), each checked before the call against the shape and dtype it was
planned for: a value that changed raises ``Stale`` before anything ran, and the executor runs the
rest of the step op by op and plans again. An update launch (momentum) writes its Param and state
in place where the run was donated it (pe_cli/executor/donation.py), else over a copy it puts in the values.
"""

import math
import os

import numpy as np

from ..ops import registry
from ..shapes.structured import Spec
from . import nan_check
from .plan import run_step
from .segment import Segment, Stale, compile_seconds  # noqa: F401 (compile_seconds: for the benchmarks)
from .sub_block import runs_block


def enabled():
    """CPU steps run planned, unless ``PE_PLANNED_STEP=0`` (op by op: the same bits, for a comparison)."""
    return os.environ.get("PE_PLANNED_STEP", "1") != "0"


def _out_kernel(step):
    """The out-kernel of the step's op on its device, where the op has a structured kernel (shapes/structured.py)."""
    structured = registry.get(step.op.type).structured
    return None if structured is None else structured.out_kernel(step.device.kind)


def _meta(step, table):
    """The Meta the op's meta rule decides for the shapes and dtypes ``table`` gives its inputs (a list of them
    for a duplicable slot; its step's facts: paddle2), or None where one is unknown; the same rule its op-by-op
    step runs."""
    specs = {}
    for slot, names, dup in step.inputs:
        if any(name not in table for name in names):
            return None
        specs[slot] = [Spec(*table[name]) for name in names] if dup else Spec(*table[names[0]])
    return registry.get(step.op.type).structured.meta(step.attrs, specs, step.context)


def _meta_outputs(op, meta, sample):
    """{name: (shape, dtype)} of the outputs the Meta decides, or None (no Meta, or an output it leaves that the
    step's values hold: an output its variant leaves unwritten, as dropout's Mask at test time, is planned only
    where the op-by-op step that ``sample`` holds the values of left it without one too)."""
    if meta is None:
        return None
    outs = {}
    for slot, spec in meta.outputs.items():
        names = op.outputs.get(slot) or ()
        specs = spec if type(spec) is list else [spec]  # (a list output: a duplicable slot's, one a variable)
        if len(names) != len(specs) or len(set(names)) != len(names):
            return None
        for name, (shape, dtype) in zip(names, specs):
            outs[name] = (tuple(shape), np.dtype(dtype))
    names = op.output_arg_names
    if len(set(names)) != len(names) or any(sample.get(n) is not None for n in names if n not in outs):
        return None
    return outs


def _size(spec):
    """(elements, dtype) of a (shape, dtype): what a view of another shape keeps."""
    return math.prod(spec[0]), spec[1]


def _array(value):
    return value if type(value) is np.ndarray else None


def _laid_out(value):
    """``value`` where a segment can read it from outside: an array in C order (Segment.arguments finds any other
    Stale, every step); else None, so that no launch reads it (its readers are Python launches: an op fed a
    strided view, as an op case feeds accuracy's Indices, stays planned around it)."""
    array = _array(value)
    return array if array is not None and array.flags.c_contiguous else None


class Rewrite:
    """In a device's sequence: a node that is no op of it (a collective) writes ``names`` there."""

    __slots__ = ("names",)

    def __init__(self, names):
        self.names = tuple(names)


class Reduce:
    """In the sequence of the device that owns a parameter: the data-parallel reduce summing its gradient
    ``names[0]`` over the devices, in their order, into this device's own (its buffer, in place).
    ``keys``: the addends in device order (the name for this device's, ``(name, device)`` for another's,
    which the step puts in this device's values while its segment runs: ``links``, (key, device, name));
    ``peers``: their (shape, dtype); ``form(keys, out, table)``: the runtime's launches of the sum
    (pe_cli/kernels/cpu/collectives.py), or None: the collective, run in Python."""

    __slots__ = ("form", "keys", "links", "names", "peers")

    def __init__(self, name, root, devices, peers, form):
        self.names = (name,)
        self.keys = [name if d == root else (name, d) for d in devices]
        self.links = [((name, d), d, name) for d in devices if d != root]
        self.peers, self.form = peers, form


class DevicePlan:
    """One device's ops planned, in the order they run: ``steps[i]`` an OpStep (or a Rewrite, a Reduce),
    ``launches[i]`` its launches (None: a Python launch), ``buffers`` (name -> array) the outputs
    the launches write (an output that is an input's value, as it is or in another shape, the input's
    buffer, or a view of it), ``external[i]`` the names step i's launches read from the values (not
    from a buffer), ``table`` every known shape."""

    def __init__(self, steps, sample):
        self.steps = list(steps)
        self.table, self.buffers, self.launches, self.external = {}, {}, [], []
        lods = getattr(sample, "lods", {}) or {}
        written = set()
        for step in self.steps:
            if type(step) not in (Rewrite, Reduce):
                for name in step.op.input_arg_names:
                    value = _laid_out(sample.get(name))
                    if name not in written and name not in self.table and value is not None:
                        self.table[name] = (value.shape, value.dtype)
                written.update(step.op.output_arg_names)
        self._written, self._live = set(), set()  # written or read so far; names whose value is a buffer now
        self.shared = set()  # names whose buffer's memory another name's buffer holds too (an alias, a view)
        self.lod_steps = set()  # launched steps reading or writing a value with a LoD (in ``sample``)
        for step in self.steps:
            kind = type(step)
            names = step.names if kind in (Rewrite, Reduce) else step.op.output_arg_names
            launches = None
            if kind is Reduce:
                launches = self._plan_reduce(step)
            elif kind is not Rewrite and self._plannable(step, lods):
                launches = self._plan_op(step, sample)
            if launches is None:  # a Python launch: later launches read its outputs as it leaves them
                for name in names:
                    self.table.pop(name, None)
                    value = _laid_out(sample.get(name))
                    if value is not None:
                        self.table[name] = (value.shape, value.dtype)
                self._live.difference_update(names)
                self.external.append(())
            self._written.update(names)
            if kind not in (Rewrite, Reduce):  # a name read before its write holds another value then
                self._written.update(step.op.input_arg_names)
                if launches is not None and any(n in lods for n in (*step.op.input_arg_names, *names)):
                    self.lod_steps.add(len(self.launches))  # (its outputs' LoD passed after its segment)
            self.launches.append(launches)

    @staticmethod
    def _plannable(step, lods):
        op = step.op
        opdef = registry.get(op.type)
        return (
            _out_kernel(step) is not None
            and not opdef.structured.python  # (print, assert, save, load, feed, fetch: between segments)
            and not any(op.inputs.get(s) for s in opdef.attr_tensors)  # (attributes given as tensors: read each step)
            and not (opdef.channels_last and op.attrs.get("data_format") in ("NHWC", "NDHWC"))
            # (an op that reads or makes a LoD; any other op's outputs take their inputs' after its segment)
            and not (step.needs_lod and any(n in lods for n in op.input_arg_names + op.output_arg_names))
            and not step.context.blocked  # (the onednn_blocked_layout pass's kernels: kernels/cpu/blocked.py)
            and not runs_block(op)
            and not nan_check.ENABLED
        )

    def _viewed(self, launch):
        """``launch``, or the copies it gives instead (``Launch.unviewed``) where an input it views is no buffer of
        the plan's (a value read from outside: its memory is another array each step)."""
        if launch.unviewed is not None and any(src not in self._live for src in launch.views.values()):
            return launch.unviewed
        return [launch]

    def _plan_reduce(self, step):
        """The launches of a Reduce, where this device's gradient is a buffer of its own (no alias or view
        of another value: the sum is written over it) and the runtime gives them; else None."""
        (name,) = step.names
        if step.form is None or name not in self._live or name in self.shared:
            return None
        table = dict(self.table)
        table.update(step.peers)
        launches = step.form(step.keys, name, table)
        if not launches:
            return None
        self.table = table
        self.external.append(frozenset(step.peers))
        return launches

    def _plan_op(self, step, sample):
        op, out_kernel = step.op, _out_kernel(step)
        form = getattr(out_kernel, "launches", None)  # (an out-kernel of none: a Python launch)
        meta = None if form is None else _meta(step, self.table)
        outs = _meta_outputs(op, meta, sample)
        if outs is None:
            return None
        for name, (shape, dtype) in outs.items():
            seen = _array(sample.get(name))
            if seen is not None and (seen.shape != shape or seen.dtype != dtype):
                return None  # the Meta and the step's values disagree: the values rule
        table = dict(self.table, **outs)
        launches = form(op, table, meta)  # (the loops of the variant the Meta chose, or None)
        if not launches:  # (an op's launches that use random numbers draw them: Launch.draw, run with the GIL)
            return None
        launches = [done for launch in launches for done in self._viewed(launch)]
        block_vars = op.block.vars
        for launch in launches:
            for name in [*launch.writes, *launch.aliases, *launch.views]:
                var = block_vars.get(name)
                if name in self._written or name in op.input_arg_names or (var is not None and var.persistable):
                    return None  # a buffer holds one value a step, of one writer, not saved in the scope
            if any(n in self._live or n not in self.table for n in launch.updates):
                return None
            if any(src not in self._live or table[src][0] != table[dst][0] for dst, src in launch.aliases.items()):
                return None
            if any(
                src not in self._live or _size(table[src]) != _size(table[dst]) for dst, src in launch.views.items()
            ):
                return None
        self.table = table
        self.external.append(frozenset(n for n in op.input_arg_names if n not in self._live))
        for launch in launches:
            for name in launch.writes:
                self.buffers[name] = np.empty(*table[name])
            for dst, src in launch.aliases.items():
                self.buffers[dst] = self.buffers[src]
            for dst, src in launch.views.items():
                self.buffers[dst] = self.buffers[src].reshape(table[dst][0])  # (its memory in dst's shape)
            self.shared.update(n for pair in [*launch.aliases.items(), *launch.views.items()] for n in pair)
            self._live.update(launch.writes)
            self._live.update(launch.aliases)
            self._live.update(launch.views)
        return launches


def segments_of(plan):
    """The plan's steps as a list of entries: a Segment for each run of consecutive launches, an int
    (a step index) for each Python launch."""
    entries, run = [], []
    for i, launches in enumerate(plan.launches):
        if run and launches is None:
            entries.append(Segment(plan, run))
            run = []
        if launches is None:
            entries.append(i)
        else:
            run.append(i)
    if run:
        entries.append(Segment(plan, run))
    return entries


class PlannedStep:
    """A one-device step (the Executor's): its DevicePlan and the entries it runs in order."""

    def __init__(self, steps, sample):
        self.plan = DevicePlan(steps, sample)
        self.entries = segments_of(self.plan)
        self.planned_ops = sum(1 for launches in self.plan.launches if launches is not None)

    def run(self, values):
        """One step over ``values``; False where a value was not as planned (the step then ran op by
        op from there, and the plan should be dropped)."""
        values.update(self.plan.buffers)
        values.kept = self.plan.buffers.keys()  # (no enable_inplace step writes over a buffer)
        steps = self.plan.steps
        for n, entry in enumerate(self.entries):
            if type(entry) is int:
                run_step(steps[entry], values)
                continue
            try:
                entry.run(values)
            except Stale:
                for later in self.entries[n:]:
                    for step in [steps[later]] if type(later) is int else later.steps:
                        run_step(step, values)
                return False
        return True


def signature(values, names):
    """The key a plan is kept under: the shapes, dtypes and LoDs of the values ``names``."""
    lods = getattr(values, "lods", None) or {}
    key = []
    for name in names:
        value = values.get(name)
        array = _array(value)
        shape, dtype = (None, None) if array is None else (array.shape, array.dtype)  # (equal dtypes hash alike)
        key.append((name, type(value), shape, dtype, repr(lods[name]) if name in lods else None))
    return tuple(key)


PLAN_AFTER = 2  # op-by-op steps of a signature before it is planned (a program run once is never planned)
_KEPT = 16  # signatures counted or planned per program (more run op by op)


def count_or_run(cache, key, run):
    """``run()`` (a kept plan's step, False where it ended op by op) where ``key`` is planned in
    ``cache``; else counts an op-by-op step of it, marking it to be planned after that step when it
    is the PLAN_AFTER-th. Returns whether the step ran planned."""
    entry = cache.get(key, 0)
    if type(entry) is int:
        if entry or len(cache) < _KEPT:
            cache[key] = entry + 1
            if entry + 1 >= PLAN_AFTER:
                cache[("@pending",)] = key
        return False
    if not run(entry):
        del cache[key]  # a value changed under the same feeds (a Python launch's shape): plan again
    return True


def pending(cache):
    """The key to plan from the step that just ran op by op, or None."""
    key = cache.pop(("@pending",), None)
    return key if key is not None and type(cache.get(key)) is int else None


def run_planned(cache, steps, feed_names, values):
    """One step of ``steps`` (one device's OpSteps) over ``values``, planned where a plan of the
    feeds' signature is kept in ``cache`` (a dict the caller keeps with ``steps``); False where the
    step must run op by op (``plan_after`` then plans from its values when it is time)."""
    return count_or_run(cache, signature(values, feed_names), lambda planned: planned.run(values))


def plan_after(cache, steps, values):
    """Plans the signature the last run_planned marked, from the values of its step (run op by op)."""
    key = pending(cache)
    if key is not None:
        cache[key] = PlannedStep(steps, values)
