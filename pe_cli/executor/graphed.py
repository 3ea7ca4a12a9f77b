"""Steps on a CUDA place run as recorded wholes (kernels/cuda/step_graph.py), when step graphs are on.

A plan keeps one entry per signature: the scope, the plan's steps and frees, the fetches, and the
feeds' names, shapes, dtypes and LoD. The first step of a signature runs op by op (it compiles the
kernels and warms the pool); the second is captured, then replayed; later ones replay after a
check that the scope still holds the very arrays the recording reads (a replaced parameter makes
it record again). A signature whose capture is refused (a host read, a random or control-flow op,
NaN checks) runs op by op from then on. The executor only asks for a step's values.
"""
import numpy as np

from . import nan_check
from .feeding import as_feed_array
from .plan import run_steps

_SEEN = "seen"


class Refused(str):
    """Why a signature runs op by op."""


def run(executor, graphs, plan, steps, frees, feed, fetch_list, scope):
    """One step of ``plan`` through its recording: (values, LoDs) holding at least the fetches."""
    fed = {}
    for name, value in feed.items():
        name = name if isinstance(name, str) else name.name
        fed[name] = as_feed_array(plan.block, name, value)
    fetches = tuple(f if isinstance(f, str) else f.name for f in fetch_list or ())
    key = _signature(scope, steps, frees, fed, fetches)
    entry = plan.graphs.get(key)
    if hasattr(entry, "replay"):
        refills = _refills(entry, scope)
        if refills is not None:
            host = {name: np.ascontiguousarray(array) for name, (array, _) in fed.items()}
            return _replayed(executor, entry, dict(host, **refills), scope)
        entry = _SEEN           # the scope holds arrays of other shapes now: record again
    if entry is _SEEN:
        entry = _capture(executor, graphs, plan, steps, frees, feed, fed, fetches, scope)
        plan.graphs[key] = entry
        if hasattr(entry, "replay"):
            return _replayed(executor, entry, None, scope)     # the captured step runs now
    else:
        plan.graphs[key] = entry or _SEEN
    return executor._step(plan, steps, frees, feed, scope)


def refusals(plan):
    """The reasons this plan's signatures run op by op (what tests and users can inspect)."""
    return [entry for entry in plan.graphs.values() if isinstance(entry, Refused)]


def _signature(scope, steps, frees, fed, fetches):
    feeds = tuple((name, a.shape, a.dtype.str) if type(a) is np.ndarray else (name, type(a).__name__)
                  for name, (a, _) in fed.items())
    lods = tuple(tuple(tuple(level) for level in lod) for _, lod in fed.values() if lod)
    return id(scope), id(steps), None if frees is None else id(frees), fetches, feeds, lods


def _refills(recording, scope):
    """The values to copy into the recording's buffers before a replay: those the scope holds in
    place of the buffers it read (a learning rate set from the host each step, a parameter loaded),
    of the same shape, dtype and LoD; None when one differs (the step must be recorded again)."""
    refills = {}
    for name, array in recording.reads.items():
        held = scope.find_var(name)
        value = None if held is None else held.tensor._array
        if value is array:
            continue
        if held.tensor._lod != recording.read_lods[name] or getattr(value, "shape", None) != array.shape \
                or getattr(value, "dtype", None) != array.dtype or type(value) is not np.ndarray and \
                not hasattr(value, "copy_to_host"):
            return None
        refills[name] = np.ascontiguousarray(value) if type(value) is np.ndarray else value
    return refills


def _replayed(executor, recording, copied_in, scope):
    recording.replay(copied_in)
    for name in recording.kept.intersection(copied_in or ()):   # a persistable: its scope holds the buffer again
        scope.set_array(name, recording.reads[name])
    for name, (array, lod) in recording.state.items():
        scope.set_array(name, array, lod)
    executor._memory.finish()
    return recording.outputs, recording.lods


def _capture(executor, graphs, plan, steps, frees, feed, fed, fetches, scope):
    """A recording of this step (not run yet), or the Refused reason it cannot be one."""
    reason = _static_refusal(steps, fed, plan.block)
    if reason is not None:
        return Refused(reason)
    for name in plan.persistable_writes:
        scope.var(name)
    values, lods = executor._gather_inputs(plan, feed, scope)
    recording = graphs.recording(executor._memory.device)
    reason = _take_inputs(recording, values, fed, scope, plan.block)
    if reason is not None:
        return Refused(reason)
    try:
        with recording:
            run_steps(steps, frees, values)
            _write_back(recording, plan, values)
    except Exception as e:      # nothing ran: the step runs op by op (and raises there if it fails there)
        first = (str(e).splitlines() or [""])[0]
        return Refused(recording.refused or f"the capture failed: {type(e).__name__}: {first}")
    for name in fetches:
        if not hasattr(values.get(name), "copy_to_host"):
            return Refused(f"the fetch '{name}' is not a dense value of the step")
        recording.outputs[name] = values[name]
        if lods.get(name):
            recording.lods[name] = lods[name]
    for name in plan.persistable_writes:
        if name in values:
            recording.state[name] = (recording.reads.get(name, values[name]), lods.get(name))
    return recording


def _static_refusal(steps, fed, block):
    if nan_check.ENABLED:
        return "NaN checks read every output on the host"
    for step in steps:
        if "_rng" in step.attrs:
            return f"{step.op.type} draws random numbers on the host"
        if "_block" in step.attrs:
            return f"{step.op.type} runs a block decided on the host"
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
            return Refused(f"'{name}' is not a device array held by the scope")
        recording.reads[name] = array
        recording.read_lods[name] = held.tensor._lod
        if name in block.vars and block.vars[name].persistable:
            recording.kept.add(name)
    return None


def _write_back(recording, plan, values):
    """Records copies that put each updated persistable back in the buffer the step read it from, so
    that the next replay reads it there (the scope keeps that buffer)."""
    for name in plan.persistable_writes:
        new = values.get(name)
        if new is None:
            continue
        old = recording.reads.get(name)
        if not hasattr(new, "copy_to_host") or \
                old is not None and (old.shape != new.shape or old.dtype != new.dtype):
            recording.refuse(f"the update of '{name}' (not a dense array of its shape)")
        if old is not None and new is not old:
            recording.copy(old, new)
