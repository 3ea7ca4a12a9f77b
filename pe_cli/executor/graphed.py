"""Steps on a CUDA place run as recorded wholes (kernels/cuda/step_graph.py), when step graphs are on.

A plan keeps one entry per signature: the scope, the plan's steps and frees, the fetches, and the
feeds' names, shapes, dtypes and LoD. The first step of a signature runs op by op (it compiles the
kernels and warms the pool). The second is captured: its ops are captured into segments, each run
as soon as it is captured; an op that cannot be captured (it reads on the host, copies from the
host, draws random numbers or runs a block decided on the host) runs between two segments, on
every replay, its outputs copied into the buffers the next segments read. An op found out only
while capturing ends that step op by op from the start of its segment, and the next step is
captured with it outside. Later steps replay after checking the scope: values it holds in place of
the recording's buffers (a learning rate set from the host, a loaded parameter) are copied in, and
other shapes make it record again. A signature whose ops between segments change their outputs'
shapes, or that NaN checks read, runs op by op from then on. The executor only asks for values.
"""

import numpy as np

from . import nan_check
from .feeding import as_feed_array
from .plan import Values, run_step


_RECORDINGS = 8  # per plan: more signatures run op by op (each recording holds its buffers)
_SIGNATURES = 1024  # per plan: more are forgotten (a new LoD is a new signature)


class Refused(str):
    """Why a signature runs op by op."""


class _Pending:
    """A signature seen before and not recorded: the ops to run between segments when it is."""

    __slots__ = ("eager",)

    def __init__(self, eager):
        self.eager = eager


class _Eager:
    """An op that runs on every replay between two segments: its step, the values before it
    (name -> the recording's arrays) and the buffers the later parts read its outputs from."""

    __slots__ = ("index", "step", "values", "lods", "outputs", "out_lods")

    def __init__(self, index, step, values):
        self.index, self.step = index, step
        self.values, self.lods = dict(values), dict(values.lods)

    def took(self, values):
        names = [n for _, names, _ in self.step.outputs for n in names if n in values]
        self.outputs = {n: values[n] for n in names}
        self.out_lods = {n: values.lods.get(n) for n in names}

    def rerun(self, recording):
        """Runs the op again; None when its outputs went to the recorded buffers, else the values
        after it (the rest of the step must run op by op)."""
        values = Values(self.values, self.lods)
        run_step(self.step, values)
        for name, buffer in self.outputs.items():
            new = values.get(name)
            if new is buffer:
                continue
            if values.lods.get(name) != self.out_lods[name] or not recording.copy_into(buffer, new):
                return values
        return None


def run(executor, graphs, plan, steps, frees, feed, fetch_list, scope):
    """One step of ``plan``: (values, LoDs) holding at least the fetches."""
    fed = {}
    for name, value in feed.items():
        name = name if isinstance(name, str) else name.name
        fed[name] = as_feed_array(plan.block, name, value)
    fetches = tuple(f if isinstance(f, str) else f.name for f in fetch_list or ())
    key = _signature(scope, steps, frees, fed, fetches)
    entry = plan.graphs.get(key)
    if entry is None or isinstance(entry, Refused):
        if len(plan.graphs) >= _SIGNATURES:
            plan.graphs.clear()
        plan.graphs[key] = entry or _Pending(_eager_ops(steps))
        return executor._step(plan, steps, frees, feed, scope)
    if hasattr(entry, "parts"):
        refills = _refills(entry, scope)
        if refills is not None:
            host = {name: np.ascontiguousarray(array) for name, (array, _) in fed.items()}
            return _replayed(executor, plan, key, entry, steps, frees, dict(host, **refills), scope)
        entry = _Pending(entry.eager)  # the scope holds arrays of other shapes now: record again
        plan.graphs[key] = entry
    elif sum(hasattr(e, "parts") for e in plan.graphs.values()) >= _RECORDINGS:
        return executor._step(plan, steps, frees, feed, scope)
    return _captured(executor, graphs, plan, key, entry.eager, steps, frees, feed, fed, fetches, scope)


def refusals(plan):
    """The reasons this plan's signatures run op by op (what tests and users can inspect)."""
    return [entry for entry in plan.graphs.values() if isinstance(entry, Refused)]


def _signature(scope, steps, frees, fed, fetches):
    feeds = tuple(
        (name, a.shape, a.dtype.str) if type(a) is np.ndarray else (name, type(a).__name__)
        for name, (a, _) in fed.items()
    )
    lods = tuple(tuple(tuple(level) for level in lod) for _, lod in fed.values() if lod)
    return id(scope), id(steps), None if frees is None else id(frees), fetches, feeds, lods


def _eager_ops(steps):
    """The ops known to run on the host whatever their inputs: random draws, blocks."""
    return frozenset(i for i, step in enumerate(steps) if step.on_host)


def _refills(recording, scope):
    """The values to copy into the recording's buffers before a replay: those the scope holds in
    place of the buffers it read, of the same shape, dtype and LoD; None when one differs."""
    refills = {}
    for name, array in recording.reads.items():
        held = scope.find_var(name)
        if held is None:
            return None
        value = held.tensor._array
        if value is array:
            continue
        if (
            held.tensor._lod != recording.read_lods[name]
            or np.shape(value) != array.shape
            or getattr(value, "dtype", None) != array.dtype
            or type(value) is not np.ndarray
            and not hasattr(value, "copy_to_host")
        ):
            return None
        refills[name] = np.ascontiguousarray(value) if type(value) is np.ndarray else value
    return refills


def _replayed(executor, plan, key, recording, steps, frees, copied_in, scope):
    recording.copy_in(copied_in)
    for name in recording.kept.intersection(copied_in):  # a persistable: its scope holds the buffer again
        scope.set_array(name, recording.reads[name])
    for part in recording.parts:
        if type(part) is not _Eager:
            part.run()
            continue
        values = part.rerun(recording)
        if values is not None:
            plan.graphs[key] = Refused(f"the outputs of {part.step.op.type} change between steps")
            return _op_by_op(executor, plan, steps, frees, part.index + 1, values, scope, {})
    recording.replays += 1
    return _finished(executor, recording, scope)


def _finished(executor, recording, scope):
    for name, (array, lod) in recording.state.items():
        scope.set_array(name, array, lod)
    executor._memory.finish()
    return recording.outputs, recording.lods


def _op_by_op(executor, plan, steps, frees, start, values, scope, feed):
    """The step from op ``start`` on, op by op, then its values stored as a run stores them."""
    for i in range(start, len(steps)):
        _run_one(steps, frees, i, values)
    executor._store(plan, values, scope, feed)
    return values, values.lods


def _run_one(steps, frees, i, values):
    run_step(steps[i], values)
    for name in () if frees is None else frees[i]:
        values.pop(name, None)


def _captured(executor, graphs, plan, key, eager, steps, frees, feed, fed, fetches, scope):
    """The step captured (and run) as a recording, or op by op where it cannot be."""
    reason = _static_refusal(fed, plan.block)
    if reason is not None:
        plan.graphs[key] = Refused(reason)
        return executor._step(plan, steps, frees, feed, scope)
    for name in plan.persistable_writes:
        scope.var(name)
    values, lods = executor._gather_inputs(plan, feed, scope)
    recording = graphs.recording(executor._memory.device)
    recording.eager = eager
    reason = _take_inputs(recording, values, fed, scope, plan.block)
    if reason is not None:
        plan.graphs[key] = Refused(reason)
        return _op_by_op(executor, plan, steps, frees, 0, values, scope, feed)
    stopped = _run_parts(recording, eager, plan, steps, frees, values)
    if stopped is not None:  # op ``index`` cannot be captured: outside the segments next time
        start, index, reason = stopped
        plan.graphs[key] = _Pending(eager | {index}) if index < len(steps) else Refused(reason)
        return _op_by_op(executor, plan, steps, frees, start, values, scope, feed)
    reason = _take_outputs(recording, plan, values, fetches) or _not_dense(recording)
    if reason is not None:  # (the step has run: it is stored as a run stores it)
        plan.graphs[key] = Refused(reason)
        executor._store(plan, values, scope, feed)
        return values, lods
    plan.graphs[key] = recording
    return _finished(executor, recording, scope)


def _run_parts(recording, eager, plan, steps, frees, values):
    """Captures and runs the step's segments in turn, the ``eager`` ops between them. None when
    the whole step is recorded; else (the first op not run, the op that cannot be captured, why),
    ``values`` as they were before that op's segment (nothing of the segment ran)."""
    i, n = 0, len(steps)
    while True:
        start, saved, saved_lods = i, dict(values), dict(values.lods)
        segment = recording.segment()
        try:
            with segment:
                while i < n and i not in eager:
                    _run_one(steps, frees, i, values)
                    i += 1
                if i == n:
                    _write_back(segment, recording, plan, values)
        except Exception as e:
            values.clear()
            values.update(saved)
            values.lods.clear()
            values.lods.update(saved_lods)
            first = (str(e).splitlines() or [""])[0]
            return (
                start,
                n if segment.unstartable else i,
                segment.refused or f"the capture failed: {type(e).__name__}: {first}",
            )
        segment.run()
        recording.parts.append(segment)
        if i == n:
            return None
        part = _Eager(i, steps[i], values)
        _run_one(steps, frees, i, values)
        part.took(values)
        recording.parts.append(part)
        i += 1


def _static_refusal(fed, block):
    if nan_check.ENABLED:
        return "NaN checks read every output on the host"
    for name, (array, _) in fed.items():
        if type(array) is not np.ndarray:
            return f"the feed '{name}' is not a dense tensor"
        var = block.vars.get(name)
        if var is not None and var.persistable:
            return f"the feed '{name}' is a persistable variable"
    return None


def _take_inputs(recording, values, fed, scope, block):
    """The feed buffers and the scope's arrays the recording reads; a reason when one is unfit."""
    for name, array in values.items():
        if name in fed:
            recording.feeds[name] = array
            continue
        held = scope.find_var(name)
        if held is None or held.tensor._array is not array or not hasattr(array, "copy_to_host"):
            return f"'{name}' is not a device array held by the scope"
        recording.reads[name] = array
        recording.read_lods[name] = held.tensor._lod
        if name in block.vars and block.vars[name].persistable:
            recording.kept.add(name)
    return None


def _take_outputs(recording, plan, values, fetches):
    """The fetches' arrays and the state the scope keeps; a reason when a fetch is not a device array."""
    for name in fetches:
        if not hasattr(values.get(name), "copy_to_host"):
            return f"the fetch '{name}' is not a dense value of the step"
        recording.outputs[name] = values[name]
        if values.lods.get(name):
            recording.lods[name] = values.lods[name]
    for name in plan.persistable_writes:
        if name in values:
            recording.state[name] = (recording.reads.get(name, values[name]), values.lods.get(name))
    return None


def _not_dense(recording):
    """Why the recording cannot be replayed where an op between segments makes a value that is not
    a device array (row-sparse gradients, tensor arrays): its replays could not put it in place."""
    for part in recording.parts:
        for name, value in getattr(part, "outputs", {}).items():
            if not hasattr(value, "copy_to_host"):
                return f"{part.step.op.type} makes '{name}', not a dense device array"
    return None


def _write_back(segment, recording, plan, values):
    """Records copies that put each updated persistable back in the buffer the step read it from, so
    that the next replay reads it there (the scope keeps that buffer)."""
    for name in plan.persistable_writes:
        new = values.get(name)
        if new is None:
            continue
        old = recording.reads.get(name)
        if not hasattr(new, "copy_to_host") or old is not None and (old.shape != new.shape or old.dtype != new.dtype):
            segment.refuse(f"the update of '{name}' (not a dense array of its shape)")
        if old is not None and new is not old:
            segment.copy(old, new)
