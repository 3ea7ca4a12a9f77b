"""The runs of a block op's block that its gradient needs (``while``'s iterations, a
``conditional_block``'s 0 or 1 runs: ``run_kept``) and the gradient over them (``run_backward``: the
grad block from the last run to the first, each grad op seeing the overwritten variables as its
forward op saw them). Tensor arrays' gradients add slot by slot (``add``). Used by the control-flow
kernels (control_flow.py), on the CPU and, with the device's arithmetic, on CUDA."""

import operator
from itertools import compress, repeat
from operator import is_not

import numpy as np

from ...base.tensor_array import TensorArray


class Iteration:
    """What a loop's gradient needs of one iteration: the values of the variables the body writes
    outside (``writes``) at its start and after each op (``trace``), the body's own values and
    their LoDs (``lods``: the next iteration's values of the same names have their own)."""

    __slots__ = ("start", "trace", "local", "lods")

    def __init__(self, start, local):
        self.start, self.trace, self.local, self.lods = start, [], local, {}


def _written(block, writes):
    """For each op of the block, the names of ``writes`` it writes (cached on the block runner)."""
    cached = getattr(block, "_written", None)
    if cached is None or cached[0] != writes:
        wanted = set(writes)
        cached = block._written = (
            writes,
            [tuple(n for n in s.op.output_arg_names if n in wanted) for s in block.steps],
        )
    return cached[1]


def run_kept(block, env, writes):
    """Runs the block once in a child of ``env``, keeping what its gradient needs (an Iteration).
    The trace after an op that writes none of ``writes`` is the one before it (the same dict)."""
    child = block.child(env)
    it = Iteration({n: env.get(n) for n in writes}, child)
    written, trace = _written(block, writes), it.trace

    def after(i):
        changed = written[i]
        if not changed:
            trace.append(trace[-1] if trace else it.start)
            return
        now = dict(trace[-1] if trace else it.start)
        for n in changed:
            now[n] = env.get(n)
        trace.append(now)

    block.run(child, after=after)
    lods = child.lods
    it.lods = {n: lods[n] for n in child.local if n in lods}
    return it


def run_backward(block, iterations, xs, seed_grads, attrs, lods, plus, zeros):
    """Runs the grad block over ``iterations``, last first. Returns (the gradient of each loop-carried
    variable's value before the first iteration, the summed gradient of each variable only read).
    ``lods``: the block op's inputs' LoD (slot -> LoD); ``plus`` and ``zeros`` do the arithmetic on the device's arrays."""
    writes = set(attrs["writes"])
    plan = _restore_plan(block, writes)
    carried = dict(zip(attrs["seeds"], seed_grads))
    # as Fluid's while_grad: an output the block writes without reading it (overwritten each
    # iteration) gets its gradient from outside in every iteration, not only the last
    outside = {n: g for n, g in carried.items() if n not in xs}
    totals, x_lods = {}, _input_lods(block, lods)
    for it in reversed(iterations):
        base = block.env({})
        dict.update(base, xs)
        base.lods.update(x_lods)
        base.lods.update(it.lods)
        forward = type(base)(base, it.local.local)
        dict.update(forward, dict.items(it.local))
        scope = block.child(forward)
        for name, inner in zip(attrs["seeds"], attrs["seed_grads"]):
            grad = carried.get(name, outside.get(name))
            scope[inner] = grad if grad is not None else zeros_like(it.trace[-1][name], zeros)
        block.run(scope, before=lambda j, it=it, base=base: _restore(base, it, plan[j]))
        carried = {}
        for name, inner in zip(attrs["wanted"], attrs["wanted_grads"]):
            if name in writes:
                carried[name] = scope[inner]
            else:
                totals[name] = add(totals.get(name), scope[inner], plus)
    return carried, totals


def _input_lods(block, given):
    """The LoDs of the block op's inputs (``X`` / ``Input``, duplicable: a LoD per name), by name."""
    return {
        name: lod for slot in ("X", "Input") for name, lod in zip(block.op.input(slot), given.get(slot) or []) if lod
    }


def _restore_plan(block, writes):
    """For each grad op of the block: (its forward op's index, the overwritten variables it reads,
    each with whether the forward op wrote it). Cached on the block runner."""
    cached = getattr(block, "_restores", None)
    if cached is not None and cached[0] == writes:
        return cached[1]
    body_ops, plan = block.block.parent_block.ops, []
    for step in block.steps:
        k = step.op.fwd_index
        made = set(body_ops[k].output_arg_names if k is not None else body_ops[-1].output_arg_names)
        reads = dict.fromkeys(n for n in step.op.input_arg_names if n in writes)
        plan.append((k, tuple((n, n in made) for n in reads)))
    block._restores = (writes, plan)
    return plan


def _restore(base, it, entry):
    """Before a grad op: the overwritten variables it reads as its forward op saw them (its inputs
    before it ran, its outputs after)."""
    k, names = entry
    if not names:
        return
    k = len(it.trace) - 1 if k is None else k
    before, after = it.trace[k - 1] if k > 0 else it.start, it.trace[k]
    for name, made in names:
        value = after.get(name) if made else None
        value = before.get(name) if value is None else value
        if value is not None:
            dict.__setitem__(base, name, value)


def zeros_like(x, zeros=np.zeros_like):
    """Zeros shaped like ``x``; a tensor array's: a list of empty slots; none for a value that is not a
    tensor (a rank table)."""
    if isinstance(x, list):
        return [None] * len(x)
    return zeros(x) if hasattr(x, "shape") else None


def add(a, b, plus=operator.add):
    """a + b for gradients, None meaning zero; tensor arrays add slot by slot, each slot of ``a`` without a
    LoD taking ``b``'s. A loop's gradient adds its arrays once an iteration, each holding one or two filled
    slots of an array as long as the loop: Python visits only b's filled slots, found at C speed (compress over
    map); what stays a pass over every slot is C's (the list's copy). 41 -> 17.5 us an add of a 193-slot array
    (fluid_dyn_rnn.py makes 38,722)."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, list):
        n = max(len(a), len(b))
        values = list(a)
        values += [None] * (n - len(a))
        lods = list(getattr(a, "lods", None) or ())[:n]
        lods += [None] * (n - len(lods))
        for i in _filled(b):
            x = values[i]
            values[i] = b[i] if x is None else plus(x, b[i])
        b_lods = getattr(b, "lods", None) or ()
        for i in _filled(b_lods[:n]):
            if lods[i] is None:
                lods[i] = b_lods[i]
        return TensorArray(values, lods)
    return plus(a, b)


def _filled(values):
    """The indices of ``values`` that are not None (at C speed: no Python step per slot)."""
    return compress(range(len(values)), map(is_not, values, repeat(None)))
