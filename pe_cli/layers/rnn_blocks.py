"""``static_rnn`` and ``dynamic_rnn`` in one call: a StaticRNN or DynamicRNN whose step is a function
over named variables. A model file's ``static_rnn`` / ``dynamic_rnn`` layer builds through these (its
``step`` lists layers; pe_cli/run/build_blocks.py turns them into the function), and Python can too:

    def step(v):                                  # v: the step's variables by name
        h = layers.fc([v["x"], v["h"]], 32, act="tanh")
        return {"h_new": h}
    out = layers.dynamic_rnn(step, step_inputs={"x": words},
                             memories={"h": {"shape": [32], "value": 0.0, "update": "h_new"}},
                             outputs=["h_new"])

A memory is ``{init: variable}`` or ``{shape: [...], value: 0.0}`` (a constant per sequence or batch
row), with ``update``: the name of the step variable that becomes the memory's next value."""

from ..base.errors import PeError
from .dynamic_recurrent import DynamicRecurrent
from .static_rnn import StaticRNN

__all__ = ["static_rnn", "dynamic_rnn"]

_MEMORY_KEYS = ("init", "shape", "value", "update")


def _check(kind, step_inputs, memories, outputs):
    if not isinstance(step_inputs, dict) or not step_inputs:
        raise PeError(f"{kind}: step_inputs must map step names to variables, e.g. {{x: words}}")
    for name, spec in (memories or {}).items():
        if not isinstance(spec, dict):
            raise PeError(f"{kind}: memory '{name}' must be a mapping with init or shape, and update")
        unknown = [k for k in spec if k not in _MEMORY_KEYS]
        if unknown:
            raise PeError(f"{kind}: memory '{name}' has unknown key(s) {unknown}; use {list(_MEMORY_KEYS)}")
        if "update" not in spec:
            raise PeError(f"{kind}: memory '{name}' needs update: the step variable that updates it")
        if ("init" in spec) == ("shape" in spec):
            raise PeError(f"{kind}: memory '{name}' needs exactly one of init (a variable) or shape (with value)")
    outputs = [outputs] if isinstance(outputs, str) else list(outputs or [])
    if not outputs:
        raise PeError(f"{kind}: name at least one step variable under outputs")
    return outputs


def _run_step(kind, step, inner, memories, outputs):
    """Calls the step function; returns (the step's updates, outputs) as variables."""
    made = step(dict(inner))
    if not isinstance(made, dict):
        raise PeError(f"{kind}: the step function must return its variables by name (a dict)")
    known = {**inner, **made}

    def pick(name, what):
        if name not in known:
            raise PeError(f"{kind}: {what} '{name}' is not a variable of the step (known: {', '.join(known)})")
        value = known[name]
        if isinstance(value, (tuple, list)):
            raise PeError(f"{kind}: {what} '{name}' has {len(value)} outputs; a step variable must be one")
        return value

    updates = {m: pick(spec["update"], f"memory '{m}' update") for m, spec in memories.items()}
    return updates, [pick(o, "output") for o in outputs]


def dynamic_rnn(step, step_inputs, memories=None, static_inputs=None, outputs=None, name=None):
    """A DynamicRNN over the sequences of ``step_inputs`` ({name: LoD variable}); ``static_inputs``
    ({name: variable}, one row per sequence) are seen whole at each step, shrunk to the running
    sequences; ``memories`` as the module says (a memory's init has one row per sequence). Returns the
    ``outputs`` (step variable names) as sequences with the step inputs' LoD: one variable, or a list.
    In a model file ``step`` lists layers (docs/CONFIG.md, 'Recurrent blocks')."""
    outputs = _check("dynamic_rnn", step_inputs, memories, outputs)
    memories = dict(memories or {})
    rnn = DynamicRecurrent(name=name)
    with rnn.block():
        inner = {n: rnn.step_input(v) for n, v in step_inputs.items()}
        inner.update({n: rnn.static_input(v) for n, v in (static_inputs or {}).items()})
        for m, spec in memories.items():
            inner[m] = (
                rnn.memory(init=spec["init"])
                if "init" in spec
                else rnn.memory(shape=list(spec["shape"]), value=float(spec.get("value", 0.0)))
            )
        updates, outs = _run_step("dynamic_rnn", step, inner, memories, outputs)
        for m, new in updates.items():
            rnn.update_memory(inner[m], new)
        rnn.output(*outs)
    return rnn()


def static_rnn(step, step_inputs, memories=None, outputs=None, name=None):
    """A StaticRNN over the leading (time) dimension of ``step_inputs`` ({name: [T, batch, ...]
    variable}); ``memories`` as the module says (a shape memory gets one row per batch row of the
    first step input). Returns the ``outputs`` (step variable names), each [T, batch, ...]: one
    variable, or a list. In a model file ``step`` lists layers (docs/CONFIG.md, 'Recurrent blocks')."""
    outputs = _check("static_rnn", step_inputs, memories, outputs)
    memories = dict(memories or {})
    rnn = StaticRNN(name=name)
    with rnn.step():
        inner = {n: rnn.step_input(v) for n, v in step_inputs.items()}
        batch_ref = next(iter(inner.values()))
        for m, spec in memories.items():
            if "init" in spec:
                inner[m] = rnn.memory(init=spec["init"])
            else:
                inner[m] = rnn.memory(
                    shape=[-1] + list(spec["shape"]), batch_ref=batch_ref, init_value=float(spec.get("value", 0.0))
                )
        updates, outs = _run_step("static_rnn", step, inner, memories, outputs)
        for m, new in updates.items():
            rnn.update_memory(inner[m], new)
        for o in outs:
            rnn.step_output(o)
    return rnn()
