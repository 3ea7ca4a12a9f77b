"""Resolving ops to kernels once, and running one resolved op. Both executors use this: it is the
only place where a kernel is called, so the sequential and the parallel executor compute the same."""
import numpy as np

from ..errors import OpError, PeError
from ..ops import registry


class OpStep:
    """An op resolved for one device: its kernel, where its inputs come from and outputs go."""
    __slots__ = ("op", "kernel", "inputs", "outputs", "attrs", "device")

    def __init__(self, op, device, seed_offset=0):
        opdef = registry.get(op.type)
        self.op = op
        self.device = device
        kind = device.kind if hasattr(device, "kind") else device
        self.kernel = opdef.kernel(kind)
        if kind == "cuda":      # runs on its GPU: allocations and launches go to that device
            from ..kernels.cuda.runtime import bind_kernel
            self.kernel = bind_kernel(self.kernel, device)
        dup_in = {s.name for s in opdef.inputs if s.duplicable}
        dup_out = {s.name for s in opdef.outputs if s.duplicable}
        self.inputs = tuple((slot, tuple(names), slot in dup_in) for slot, names in op.inputs.items() if names)
        self.outputs = tuple((slot, tuple(names), slot in dup_out) for slot, names in op.outputs.items() if names)
        self.attrs = op.attrs
        if opdef.needs_rng:
            self.attrs = dict(op.attrs, _rng=make_rng(op, seed_offset))


def make_rng(op, seed_offset):
    """A random stream per op: its ``seed`` attribute, else the program's ``random_seed`` mixed
    with the op's position; both 0 means fresh entropy, as in Fluid."""
    seed = op.attrs.get("seed", 0) or 0
    program_seed = op.block.program.random_seed or 0
    if not seed and not program_seed:
        return np.random.default_rng()
    index = op.block.ops.index(op) if op in op.block.ops else 0
    return np.random.default_rng([seed, program_seed, index, seed_offset])


def run_step(step, values):
    """Runs one op: reads its inputs from ``values`` (name -> array), writes its outputs there."""
    try:
        ins = {}
        for slot, names, dup in step.inputs:
            ins[slot] = [values[n] for n in names] if dup else values[names[0]]
        outs = step.kernel(ins, step.attrs)
    except KeyError as e:
        name = e.args[0]
        raise OpError(f"{step.op.describe()}: input variable '{name}' has no value; "
                      f"is it fed, or initialized by the startup program?", step.op, step.device) from None
    except PeError as e:
        raise OpError(f"{step.op.describe()} on {step.device}: {e}", step.op, step.device) from e
    except Exception as e:
        raise OpError(f"{step.op.describe()} on {step.device} failed: {type(e).__name__}: {e}",
                      step.op, step.device) from e
    for slot, names, dup in step.outputs:
        value = outs.get(slot)
        if value is None:
            continue
        if dup:
            for n, v in zip(names, value):
                values[n] = v
        else:
            values[names[0]] = value
