"""Running a structured kernel (pe_cli/shapes/structured.py): its meta rule decides the outputs' shapes and
dtypes and the loop variant, the outputs are allocated here, and the device's out-kernel computes into them.

Two callers, one computation:

- ``StepKernel``: an executor's step of the op (executor/plan.py binds one per step, ``OpDef.step_kernel``).
  It keeps the Meta of each shape signature of its inputs (``signature``: their shapes and dtypes), so
  the rule runs once per signature; each call allocates the outputs the Meta says (or hands the out-kernel
  the input it may write over, ``Meta.inplace``, where the executor allows it: ``ctx.inplace``) and calls
  the out-kernel.
- ``adapter``: the op's ``kernel(ins, attrs[, ctx])`` (``OpDef.kernel``): the same, the rule run on every
  call, for every caller of a kernel by that name (a Fluid one-op run, an op test, CUDA's host fallbacks,
  another kernel, layouts)."""

import numpy as np

from .context import NO_CONTEXT


def allocate(meta, ins, overwrite=False):
    """The buffers the out-kernel fills: slot -> an empty array of the Meta's shape and dtype, or the
    input the Meta lets that output be when ``overwrite`` (the executor's leave) and that input is a
    writable C-contiguous array of the output's shape and dtype; the Meta's scratch buffers too, by name."""
    outs = {}
    for slot, (shape, dtype) in meta.outputs.items():
        src = meta.inplace.get(slot) if overwrite else None
        x = None if src is None else ins.get(src)
        if (
            isinstance(x, np.ndarray)
            and x.shape == tuple(shape)
            and x.dtype == dtype
            and x.flags.c_contiguous
            and x.flags.writeable
        ):
            outs[slot] = x
        else:
            outs[slot] = np.empty(shape, dtype)
    for name, (shape, dtype) in meta.scratch.items():
        outs[name] = np.empty(shape, dtype)
    return outs


def _outputs(meta, outs):
    return {slot: outs[slot] for slot in meta.outputs} if meta.scratch else outs


def signature(ins):
    """The key of the inputs' shapes and dtypes (a list slot's per value), or None where a value is no
    array (a Meta of it is not kept)."""
    key = []
    for v in ins.values():
        if type(v) is np.ndarray:
            key.append((v.shape, v.dtype))
        elif type(v) is list and all(type(a) is np.ndarray for a in v):
            key.append(tuple((a.shape, a.dtype) for a in v))
        elif v is None:
            key.append(None)
        else:
            return None
    return tuple(key)


KEPT = 32  # signatures a step keeps the Meta of (more: it forgets them all and starts again)


class StepKernel:
    """A structured op's kernel in one executor step: ``meta(attrs, ins, ctx)`` once per signature of its
    inputs (``metas``: signature -> (Meta, its outputs)), then ``out_kernel(ins, outs, attrs, meta)`` into outputs allocated here.
    ``check(ins, attrs, ctx)``: the op's run-time checks of its inputs' dtypes (kernels/run_checks.py),
    which a signature decides, made with its meta."""

    takes_context = True
    __slots__ = ("meta", "out_kernel", "check", "metas", "__name__")

    def __init__(self, meta, out_kernel, name, check=None):
        self.meta, self.out_kernel, self.check, self.metas, self.__name__ = meta, out_kernel, check, {}, name

    def __call__(self, ins, attrs, ctx=NO_CONTEXT):
        key = signature(ins)
        decided = self.metas.get(key)
        if decided is None:
            decided = self._decide(key, ins, attrs, ctx)
        meta, empties = decided
        if empties is None or ctx.inplace:  # (scratch, or outputs that may be an input's buffer)
            outs = allocate(meta, ins, ctx.inplace)
        elif len(empties) == 1:
            slot, shape, dtype = empties[0]
            outs = {slot: np.empty(shape, dtype)}
        else:
            outs = {slot: np.empty(shape, dtype) for slot, shape, dtype in empties}
        self.out_kernel(ins, outs, attrs, meta)
        return outs if empties is not None else _outputs(meta, outs)

    def _decide(self, key, ins, attrs, ctx):
        """(the Meta of the inputs' signature, its outputs as (slot, shape, dtype) or None where it has
        scratch buffers), kept for the signature where it has one."""
        if self.check is not None:
            self.check(ins, attrs, ctx)
        meta = self.meta(attrs, ins, ctx)
        empties = None if meta.scratch else tuple((slot, shape, dtype) for slot, (shape, dtype) in meta.outputs.items())
        if key is not None:
            if len(self.metas) >= KEPT:  # (shapes that drift from batch to batch: the recent ones)
                self.metas.clear()
            self.metas[key] = (meta, empties)
        return meta, empties


def adapter(meta, out_kernel, name):
    """The op's ``kernel(ins, attrs, ctx=NO_CONTEXT)`` over its meta rule and out-kernel."""

    def kernel(ins, attrs, ctx=NO_CONTEXT):
        decided = meta(attrs, ins, ctx)
        outs = allocate(decided, ins, ctx.inplace)
        out_kernel(ins, outs, attrs, decided)
        return _outputs(decided, outs)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.structured = (meta, out_kernel)
    return kernel
