"""Kernels of DynamicRNN (pe_cli/ops/dynamic_rnn.py): the step block runs through the BlockRunner
(``attrs["_block"]``) over the sequences of the step inputs, longest first, as Fluid's lod_rank_table
orders them; memories and static inputs shrink to the sequences still running. Rows are gathered and
scattered on the host and moved with ``to_device``/``to_host`` (the identity on the CPU; the CUDA
module passes its runtime's), so the steps run on the op's device."""
import numpy as np

from ...base.errors import PeError


class _Steps:
    """The schedule of one batch of sequences: ``order`` (longest first, stable), and per step t the
    number of sequences running and the rows of their t-th tokens."""

    def __init__(self, offsets):
        offsets = np.asarray(offsets, dtype=np.int64)
        lengths = np.diff(offsets)
        self.order = np.argsort(-lengths, kind="stable")
        self.count = len(lengths)
        sorted_lengths = lengths[self.order]
        starts = offsets[:-1][self.order]
        steps = int(sorted_lengths.max()) if len(lengths) else 0
        self.running = [int((sorted_lengths > t).sum()) for t in range(steps)]
        self.rows = [starts[:k] + t for t, k in enumerate(self.running)]


def _schedule(attrs):
    lods = (attrs.get("_lod") or {}).get("inputs") or []
    lod = lods[0] if lods else None
    if not lod:
        raise PeError("DynamicRNN: the step input has no LoD; feed a LoDTensor (sequences)")
    return _Steps(lod[-1])


def _same(x):
    return x


def _memories(ins, attrs, steps, to_host=np.asarray):
    """Each memory's start (on the host), one row per sequence in running (sorted) order."""
    boots, out = ins.get("initial_states") or [], []
    for j, boot in enumerate(attrs["boots"]):
        if boot >= 0:
            value = to_host(boots[boot])
            if len(value) != steps.count:
                raise PeError(f"DynamicRNN: memory {j}'s init has {len(value)} rows for {steps.count} sequences")
            out.append(np.asarray(value)[steps.order])
        else:
            start = sum(attrs["memory_ranks"][:j])
            shape = [steps.count] + list(attrs["memory_dims"][start:start + attrs["memory_ranks"][j]])
            out.append(np.full(shape, attrs["memory_values"][j], dtype=attrs["memory_dtypes"][j]))
    return out


def dynamic_recurrent(ins, attrs, to_device=_same, to_host=np.asarray):
    block, steps = attrs["_block"], _schedule(attrs)
    env = block.env(ins, attrs)
    xs = [to_host(x) for x in ins.get("inputs") or []]
    states = _memories(ins, attrs, steps, to_host)
    statics = [to_host(s)[steps.order] for s in ins.get("static_inputs") or []]
    outputs, scopes = [None] * len(attrs["step_outputs"]), []
    for k, rows in zip(steps.running, steps.rows):
        scope = block.child(env)
        for name, x in zip(attrs["step_inputs"], xs):
            scope[name] = to_device(x[rows])
        for name, s in zip(attrs["static_inputs"], statics):
            scope[name] = to_device(np.ascontiguousarray(s[:k]))
        for name, s in zip(attrs["ex_states"], states):
            scope[name] = to_device(np.ascontiguousarray(s[:k]))
        block.run(scope)
        for j, name in enumerate(attrs["states"]):
            states[j] = states[j].copy()
            states[j][:k] = to_host(scope[name])
        for j, name in enumerate(attrs["step_outputs"]):
            value = to_host(scope[name])
            if outputs[j] is None:
                outputs[j] = np.zeros((len(xs[0]),) + value.shape[1:], dtype=value.dtype)
            outputs[j][rows] = value
        scopes.append(scope)
    return {"outputs": [to_device(o) for o in outputs], "step_scopes": scopes}


def dynamic_recurrent_grad(ins, attrs, to_device=_same, to_host=np.asarray):
    block, steps = attrs["_block"], _schedule(attrs)
    xs, params = ins.get("inputs") or [], [to_host(p) for p in ins.get("parameters") or []]
    out_grads, scopes = [to_host(g) for g in ins.get("outputs@GRAD") or []], ins["step_scopes"]
    state_grads = [np.zeros_like(s) for s in _memories(ins, attrs, steps, to_host)]
    static_grads = [np.zeros_like(to_host(s)) for s in ins.get("static_inputs") or []]
    x_grads = [np.zeros_like(to_host(x)) for x in xs]
    p_grads = [np.zeros_like(p) for p in params]
    for t in range(len(scopes) - 1, -1, -1):
        k, rows = steps.running[t], steps.rows[t]
        scope = block.child(scopes[t])
        for name, og in zip(attrs["out_grads"], out_grads):
            scope[name] = to_device(og[rows])
        for name, sg in zip(attrs["state_grads"], state_grads):
            scope[name] = to_device(np.ascontiguousarray(sg[:k]))
        block.run(scope)
        for sg, name in zip(state_grads, attrs["ex_state_grads"]):
            sg[:k] = to_host(scope[name])
        for grad, name in zip(x_grads, attrs["input_grads"]):
            grad[rows] = to_host(scope[name])
        for grad, name in zip(static_grads, attrs["static_grads"]):
            grad[:k] += to_host(scope[name])
        for grad, name in zip(p_grads, attrs["parameter_grads"]):
            if name:
                grad += to_host(scope[name])
    unsort = np.argsort(steps.order)
    boots = [to_device(state_grads[j][unsort]) for j, b in enumerate(attrs["boots"]) if b >= 0]
    return {"inputs@GRAD": [to_device(g) for g in x_grads], "initial_states@GRAD": boots,
            "static_inputs@GRAD": [to_device(g[unsort]) for g in static_grads],
            "parameters@GRAD": [to_device(g) for g in p_grads]}
