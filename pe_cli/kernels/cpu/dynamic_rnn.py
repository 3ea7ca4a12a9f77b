"""Kernels of DynamicRNN (pe_cli/ops/dynamic_rnn.py): the step block runs through the BlockRunner
(its context's ``block``) over the top-level sequences of the step inputs, longest first, as Fluid's
lod_rank_table orders them; memories and static inputs shrink to the sequences still running.

At step t a step input holds the t-th element of each running sequence: a row where the input has
one LoD level, a sequence (with its LoD) where it has more, as Fluid's lod_tensor_to_array cuts it
(pe_cli/kernels/lod_items.py). A static input holds one element per running sequence (a row, or a
sequence with its LoD). Each step's output elements go back in the sequences' order, as Fluid's
array_to_lod_tensor puts them; its LoD is the input's top level over the elements' own. Each step's
LoD lives in its own scope, kept for the gradient. Rows are gathered and scattered on the host and
moved with ``to_device``/``to_host`` (the identity on the CPU; the CUDA module passes its runtime's),
so the steps run on the op's device. Out-kernels (meta rules: shapes/block_ops.py), each kernel by name the rule
and out-kernel."""

import numpy as np

from ...base.errors import PeError
from ...base.tensor_array import TensorArray
from ...shapes import block_ops as rules
from .. import lod_items
from ..context import NO_CONTEXT


class _Steps:
    """The schedule of one batch of sequences (the top level of the step input's LoD): ``order``
    (longest first, stable), and per step t the number of sequences running, the index of their
    t-th elements, and the rows of those elements with the LoD they carry."""

    def __init__(self, lod):
        offsets = np.asarray(lod[0], dtype=np.int64)
        lengths = np.diff(offsets)
        self.lod, self.offsets = lod, offsets
        self.order = np.argsort(-lengths, kind="stable")
        self.count = len(lengths)
        sorted_lengths = lengths[self.order]
        starts = offsets[:-1][self.order]
        steps = int(sorted_lengths.max()) if len(lengths) else 0
        self.running = [int((sorted_lengths > t).sum()) for t in range(steps)]
        self.items = [starts[:k] + t for t, k in enumerate(self.running)]
        self.rows = [lod_items.rows_of(lod, 1, items) for items in self.items]
        self.sub_lods = [self._sub(items) for items in self.items]

    def _sub(self, items):
        if len(self.lod) < 2:
            return None
        return lod_items.join([lod_items.span(self.lod, 1, int(i))[2] for i in items], len(self.lod) - 1)


def _schedule(ctx):
    lods = ctx.lod.get("inputs") or []
    lod = lods[0] if lods else None
    if not lod:
        raise PeError("DynamicRNN: the step input has no LoD; feed a LoDTensor (sequences)")
    return _Steps(lod)


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
            shape = [steps.count] + list(attrs["memory_dims"][start : start + attrs["memory_ranks"][j]])
            out.append(np.full(shape, attrs["memory_values"][j], dtype=attrs["memory_dtypes"][j]))
    return out


def _static_lods(ctx):
    lods = ctx.lod.get("static_inputs") or []
    return [lod or [] for lod in lods]


def _static_rows(lods, steps, k):
    """Per static input: the rows (and LoD) of the first k sequences in running order."""
    order = steps.order[:k]
    return [
        (
            lod_items.rows_of(lod, 0, order),
            lod_items.join([lod_items.span(lod, 0, int(i))[2] for i in order], len(lod)) if lod else None,
        )
        for lod in lods
    ]


def _step_scope(block, env, names_values_lods, to_device):
    """A child scope of ``env`` with its own LoDs, holding the step's values."""
    scope = block.child(env)
    scope.lods = dict(env.lods)
    for name, value, lod in names_values_lods:
        scope[name] = to_device(np.ascontiguousarray(value))
        if lod:
            scope.lods[name] = lod
        else:
            scope.lods.pop(name, None)
    return scope


def _layout(steps, step_lods):
    """Where each step's output elements go: per step, the output rows of its values (in running
    order), and the output's LoD (the input's top level over the elements' own LoD)."""
    if not any(step_lods):  # one row per element: element t of sequence i is row offsets[i] + t
        return steps.items, int(steps.offsets[-1]), [steps.offsets.tolist()]
    position = np.empty(steps.count, dtype=np.int64)
    position[steps.order] = np.arange(steps.count)
    pieces, subs, at = [[] for _ in step_lods], [], 0
    for i, n in enumerate(np.diff(steps.offsets)):
        for t in range(int(n)):
            lod = step_lods[t] or []
            rows = lod_items.rows_of(lod, 0, [position[i]])
            pieces[t].append((rows, np.arange(at, at + len(rows))))
            at += len(rows)
            if lod:
                subs.append(lod_items.span(lod, 0, int(position[i]))[2])
    index = []
    for parts in pieces:
        mine = np.empty(sum(len(r) for r, _ in parts), dtype=np.int64)
        for rows, out_rows in parts:
            mine[rows] = out_rows
        index.append(mine)
    lod = [steps.offsets.tolist()] + (lod_items.join(subs, len(subs[0])) if subs else [])
    return index, at, lod


def dynamic_recurrent_out(ins, outs, attrs, meta, ctx, to_device=_same, to_host=np.asarray):
    """The step block run on each time step: outputs, step_scopes and writes handed over (``to_device`` and
    ``to_host``: a device's transfers, CUDA's)."""
    block, steps = ctx.block, _schedule(ctx)
    env = block.env(ins, ctx.lod)
    xs = [to_host(x) for x in ins.get("inputs") or []]
    states = _memories(ins, attrs, steps, to_host)
    statics, static_lods = [to_host(s) for s in ins.get("static_inputs") or []], _static_lods(ctx)
    static_lods += [[]] * (len(statics) - len(static_lods))
    values, scopes = [[] for _ in attrs["step_outputs"]], []
    for t, k in enumerate(steps.running):
        rows, sub = steps.rows[t], steps.sub_lods[t]
        held = [(n, x[rows], sub) for n, x in zip(attrs["step_inputs"], xs)]
        held += [
            (n, s[r], lod)
            for n, s, (r, lod) in zip(attrs["static_inputs"], statics, _static_rows(static_lods, steps, k))
        ]
        held += [(n, s[:k], None) for n, s in zip(attrs["ex_states"], states)]
        if attrs.get("step_idx"):
            held.append((attrs["step_idx"], np.array([t], dtype=np.int64), None))
        scope = _step_scope(block, env, held, to_device)
        block.run(scope)
        for j, name in enumerate(attrs["states"]):
            states[j] = states[j].copy()
            states[j][:k] = to_host(scope[name])
        for j, name in enumerate(attrs["step_outputs"]):
            values[j].append((to_host(scope[name]), scope.lods.get(name)))
        scopes.append(scope)
    outputs, lods = [], []
    for per_step in values:
        index, total, lod = _layout(steps, [lod for _, lod in per_step])
        first = per_step[0][0] if per_step else np.zeros((0,), np.float32)
        out = np.zeros((total,) + first.shape[1:], dtype=first.dtype)
        for (value, _), where in zip(per_step, index):
            out[where] = value
        outputs.append(to_device(out))
        lods.append(lod)
    ctx.set_lods("outputs", lods)
    outs.update(outputs=outputs, step_scopes=scopes, writes=block.outputs(env, "writes"))


def dynamic_recurrent_grad_out(ins, outs, attrs, meta, ctx, to_device=_same, to_host=np.asarray):
    """The step block's gradient ops run on each time step, last first: the gradients handed over."""
    block, steps = ctx.block, _schedule(ctx)
    xs = ins.get("inputs") or []
    params = [None if isinstance(p, list) else to_host(p) for p in ins.get("parameters") or []]  # (arrays: none)
    out_grads, scopes = [to_host(g) for g in ins.get("outputs@GRAD") or []], ins["step_scopes"]
    state_grads = [np.zeros_like(s) for s in _memories(ins, attrs, steps, to_host)]
    statics, static_lods = ins.get("static_inputs") or [], _static_lods(ctx)
    static_lods += [[]] * (len(statics) - len(static_lods))
    static_grads = [np.zeros_like(to_host(s)) for s in statics]
    x_grads = [np.zeros_like(to_host(x)) for x in xs]
    p_grads = [TensorArray() if p is None else np.zeros_like(p) for p in params]
    index = [_layout(steps, [s.lods.get(n) for s in scopes])[0] for n in attrs["step_outputs"]]
    for t in range(len(scopes) - 1, -1, -1):
        k, rows = steps.running[t], steps.rows[t]
        held = [(name, og[where[t]], None) for name, og, where in zip(attrs["out_grads"], out_grads, index)]
        held += [(name, sg[:k], None) for name, sg in zip(attrs["state_grads"], state_grads)]
        scope = _step_scope(block, scopes[t], held, to_device)
        block.run(scope)
        for sg, name in zip(state_grads, attrs["ex_state_grads"]):
            sg[:k] = to_host(scope[name])
        for grad, name in zip(x_grads, attrs["input_grads"]):
            grad[rows] = to_host(scope[name])
        for grad, name, (r, _) in zip(static_grads, attrs["static_grads"], _static_rows(static_lods, steps, k)):
            if name:
                grad[r] += to_host(scope[name])
        for grad, name in zip(p_grads, attrs["parameter_grads"]):
            if name and not isinstance(grad, list):
                grad += to_host(scope[name])
    unsort = np.argsort(steps.order)
    boots = [to_device(state_grads[j][unsort]) for j, b in enumerate(attrs["boots"]) if b >= 0]
    ctx.set_lods("inputs@GRAD", ctx.lod.get("inputs") or [])
    ctx.set_lods("static_inputs@GRAD", static_lods)
    outs.update(
        {
            "inputs@GRAD": [to_device(g) for g in x_grads],
            "initial_states@GRAD": boots,
            "static_inputs@GRAD": [to_device(g) for g in static_grads],
            "parameters@GRAD": [g if isinstance(g, list) else to_device(g) for g in p_grads],
        }
    )


dynamic_recurrent_out.takes_context = dynamic_recurrent_grad_out.takes_context = True  # (the block, the LoDs)
dynamic_recurrent_out.launches = dynamic_recurrent_grad_out.launches = None


def dynamic_recurrent(ins, attrs, ctx=NO_CONTEXT, to_device=_same, to_host=np.asarray):
    """The kernel by name, CUDA's with its device's transfers: the meta rule and out-kernel."""
    outs = {}
    meta = rules.dynamic_recurrent_meta(attrs, ins, ctx)
    dynamic_recurrent_out(ins, outs, attrs, meta, ctx, to_device, to_host)
    return outs


def dynamic_recurrent_grad(ins, attrs, ctx=NO_CONTEXT, to_device=_same, to_host=np.asarray):
    """The kernel by name, CUDA's with its device's transfers: the meta rule and out-kernel."""
    outs = {}
    meta = rules.dynamic_recurrent_grad_meta(attrs, ins, ctx)
    dynamic_recurrent_grad_out(ins, outs, attrs, meta, ctx, to_device, to_host)
    return outs
